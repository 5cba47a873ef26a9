/* nvmf_sysfs.h - facts about RDMA devices read from sysfs (no rdma-core needed). */
#ifndef FIO_NVMEOF_SYSFS_H
#define FIO_NVMEOF_SYSFS_H

#include <stddef.h>

/* The sysfs link of RDMA device dev to its parent device (root: NULL for /sys), unresolved,
 * in buf: 0, -ENOENT when it has none (a software device), -EINVAL for a bad name. */
int nvmf_sysfs_rdma_parent(const char *root, const char *dev, char *buf, size_t len);

#endif
