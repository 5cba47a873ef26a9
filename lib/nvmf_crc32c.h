/* nvmf_crc32c.h - CRC32C (Castagnoli: reflected polynomial 0x82F63B78, initial value and final
 * XOR 0xFFFFFFFF), the NVMe/TCP header and data digest.  A checksum against corruption, not a
 * cryptographic primitive.  Includes no project header. */
#ifndef FIO_NVMEOF_CRC32C_H
#define FIO_NVMEOF_CRC32C_H

#include <stddef.h>
#include <stdint.h>

#define NVMF_CRC32C_INIT 0xffffffffu

/* Running form, for data that arrives in pieces: state = NVMF_CRC32C_INIT, then
 * state = nvmf_crc32c_update(state, piece, len) per piece, and the CRC is
 * nvmf_crc32c_final(state). */
uint32_t nvmf_crc32c_update(uint32_t state, const void *buf, size_t len);
static inline uint32_t nvmf_crc32c_final(uint32_t state)
{
	return state ^ 0xffffffffu;
}
/* The CRC32C of len bytes at buf. */
uint32_t nvmf_crc32c(const void *buf, size_t len);

/* The table-driven software update alone (tests compare it with the SSE4.2 one). */
uint32_t nvmf_crc32c_update_sw(uint32_t state, const void *buf, size_t len);

#endif
