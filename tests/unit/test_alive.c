/* test_alive.c - the run-wide board of subsystems' last completions (lib/nvmf_alive.c):
 * slots per subsystem, the latest time kept, and the page shared with forked processes. */
#include <errno.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "nvmf_alive.h"

#include "check.h"

static void test_slots(void)
{
	struct nvmf_alive_board *b = nvmf_alive_create();
	int a, a2, a3, other_port, other_nqn, other_addr;

	CHECK(b != NULL);
	if (!b)
		return;
	a = nvmf_alive_slot(b, "10.0.0.1", "4420", "nqn.a");
	a2 = nvmf_alive_slot(b, "10.0.0.1", "4420", "nqn.a");
	a3 = nvmf_alive_slot(b, "10.0.0.1", NULL, "nqn.a");     /* 4420 is the default port */
	other_port = nvmf_alive_slot(b, "10.0.0.1", "4421", "nqn.a");
	other_nqn = nvmf_alive_slot(b, "10.0.0.1", "4420", "nqn.b");
	other_addr = nvmf_alive_slot(b, "10.0.0.2", "4420", "nqn.a");
	CHECK(a >= 0 && a < NVMF_ALIVE_SLOTS);
	CHECK_EQ(a2, a);
	CHECK_EQ(a3, a);
	CHECK(other_port >= 0 && other_port != a);
	CHECK(other_nqn >= 0 && other_nqn != a && other_nqn != other_port);
	CHECK(other_addr >= 0 && other_addr != a && other_addr != other_nqn &&
	      other_addr != other_port);
	/* The strings' boundaries count: "ab"+"c" is not "a"+"bc". */
	CHECK(nvmf_alive_slot(b, "ab", "c", "x") != nvmf_alive_slot(b, "a", "bc", "x"));

	CHECK_EQ(nvmf_alive_last(b, a), 0);
	nvmf_alive_mark(b, a, 1000);
	CHECK_EQ(nvmf_alive_last(b, a), 1000);
	nvmf_alive_mark(b, a, 900);                 /* an older time does not move it back */
	CHECK_EQ(nvmf_alive_last(b, a), 1000);
	nvmf_alive_mark(b, a, 1050);
	CHECK_EQ(nvmf_alive_last(b, a), 1050);
	CHECK_EQ(nvmf_alive_last(b, other_nqn), 0); /* one subsystem's times are its own */

	/* Out of range slots and no board: nothing happens, nothing is read. */
	nvmf_alive_mark(b, -ENOSPC, 5);
	nvmf_alive_mark(b, NVMF_ALIVE_SLOTS, 5);
	CHECK_EQ(nvmf_alive_last(b, -1), 0);
	CHECK_EQ(nvmf_alive_last(b, NVMF_ALIVE_SLOTS), 0);
	CHECK_EQ(nvmf_alive_slot(NULL, "10.0.0.1", "4420", "nqn.a"), -EINVAL);
	nvmf_alive_mark(NULL, 0, 5);
	CHECK_EQ(nvmf_alive_last(NULL, 0), 0);
	nvmf_alive_destroy(b);
	nvmf_alive_destroy(NULL);
}

static void test_full(void)
{
	struct nvmf_alive_board *b = nvmf_alive_create();
	char nqn[32];
	int seen[NVMF_ALIVE_SLOTS] = { 0 }, distinct = 1;

	if (!b) {
		CHECK(b != NULL);
		return;
	}
	for (int i = 0; i < NVMF_ALIVE_SLOTS; i++) {
		int s;

		snprintf(nqn, sizeof(nqn), "nqn.%d", i);
		s = nvmf_alive_slot(b, "10.0.0.1", "4420", nqn);
		CHECK(s >= 0 && s < NVMF_ALIVE_SLOTS);
		if (s >= 0 && s < NVMF_ALIVE_SLOTS && seen[s]++)
			distinct = 0;
	}
	CHECK(distinct);
	CHECK_EQ(nvmf_alive_slot(b, "10.0.0.1", "4420", "one.too.many"), -ENOSPC);
	/* The subsystems already there keep their slots. */
	CHECK(nvmf_alive_slot(b, "10.0.0.1", "4420", "nqn.7") >= 0);
	nvmf_alive_destroy(b);
}

/* What a forked process marks, the parent reads, both ways: fio's job processes are forked
 * after the engine is loaded. */
static void test_shared_with_children(void)
{
	struct nvmf_alive_board *b = nvmf_alive_create();
	int s, st = 0;
	pid_t pid;

	if (!b) {
		CHECK(b != NULL);
		return;
	}
	s = nvmf_alive_slot(b, "10.0.0.1", "4420", "nqn.a");
	nvmf_alive_mark(b, s, 100);
	pid = fork();
	if (pid == 0) {
		int c = nvmf_alive_slot(b, "10.0.0.1", "4420", "nqn.a");
		int fresh = nvmf_alive_slot(b, "10.0.0.9", "4420", "nqn.child");

		nvmf_alive_mark(b, c, 777);
		nvmf_alive_mark(b, fresh, 55);
		_exit(c == s && nvmf_alive_last(b, c) == 777 ? 0 : 3);
	}
	CHECK(pid > 0);
	if (pid > 0) {
		waitpid(pid, &st, 0);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	CHECK_EQ(nvmf_alive_last(b, s), 777);
	/* A slot the child claimed is found, with its time, by the parent. */
	CHECK_EQ(nvmf_alive_last(b, nvmf_alive_slot(b, "10.0.0.9", "4420", "nqn.child")), 55);
	nvmf_alive_destroy(b);
}

int main(void)
{
	test_slots();
	test_full();
	test_shared_with_children();
	return check_done("test_alive");
}
