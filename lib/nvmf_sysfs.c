/* nvmf_sysfs.c - facts about RDMA devices read from sysfs.  No rdma-core here: the memory
 * backends use it where rdma-core's headers may be missing (tests/gpu/device-check.sh builds
 * them with gcc alone on a GPU machine). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "nvmf_sysfs.h"

int nvmf_sysfs_rdma_parent(const char *root, const char *dev, char *buf, size_t len)
{
	char path[512];
	ssize_t n;

	buf[0] = 0;
	if (!dev || !dev[0] || strchr(dev, '/'))
		return -EINVAL;
	snprintf(path, sizeof(path), "%s/class/infiniband/%s/device", root ? root : "/sys", dev);
	n = readlink(path, buf, len - 1);
	if (n <= 0) {
		buf[0] = 0;
		return -ENOENT;
	}
	buf[n] = 0;
	return 0;
}
