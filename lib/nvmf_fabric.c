/* nvmf_fabric.c - the transports by name and by TRTYPE. */
#include <strings.h>

#include "nvmf_fabric.h"

static const struct nvmf_fabric *const nvmf_fabrics[] = { &nvmf_fabric_rdma, &nvmf_fabric_tcp };

const struct nvmf_fabric *nvmf_fabric_by_name(const char *name)
{
	for (unsigned i = 0; name && i < sizeof(nvmf_fabrics) / sizeof(nvmf_fabrics[0]); i++)
		if (!strcasecmp(name, nvmf_fabrics[i]->name))
			return nvmf_fabrics[i];
	return NULL;
}

const struct nvmf_fabric *nvmf_fabric_by_trtype(int trtype)
{
	for (unsigned i = 0; i < sizeof(nvmf_fabrics) / sizeof(nvmf_fabrics[0]); i++)
		if (trtype == nvmf_fabrics[i]->trtype)
			return nvmf_fabrics[i];
	return NULL;
}
