/* nvmf_host.h - the host's NVMe identity (hostnqn, hostid) the way nvme-cli finds it. */
#ifndef FIO_NVMEOF_HOST_H
#define FIO_NVMEOF_HOST_H

#include <stddef.h>
#include <stdint.h>

/* Parse "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" (or 32 hex digits): 0 or -EINVAL. */
int nvmf_uuid_parse(const char *s, uint8_t out[16]);
void nvmf_uuid_format(const uint8_t u[16], char *buf, size_t len);

/* Fill hostnqn/hostid: explicit values win; else /etc/nvme/hostnqn and /etc/nvme/hostid;
 * else a value derived from /etc/machine-id, stable for this machine:
 * nqn.2014-08.org.nvmexpress:uuid:<uuid>.  etc_dir is normally "/etc/nvme" (tests pass
 * their own).  A one-line reason goes to err on failure. */
int nvmf_host_identity(const char *hostnqn_opt, const char *hostid_opt, const char *etc_dir,
		       const char *machine_id_path, char *hostnqn, size_t nqnlen,
		       uint8_t hostid[16], char *err, size_t errlen);

#endif
