/* replay.c - runs a libFuzzer target's LLVMFuzzerTestOneInput over saved inputs without
 * libFuzzer, so the corpus is a regression suite under ASan/UBSan with gcc (`make fuzz-replay`).
 *
 *   replay [DIR|FILE]...   each file, or each regular file in each directory (sorted)
 *   replay                 the directory compiled in as FUZZ_CORPUS_DIR
 *
 * Every input is handed over in a heap buffer of exactly its size, as libFuzzer does, so a read
 * past the end is an ASan error.  Exit 0 when all ran; 1 when nothing was found to run (a
 * missing corpus must not pass as an empty success); a failing input aborts. */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path)
{
	struct stat st;
	uint8_t *buf;
	FILE *f;
	size_t n;

	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return 0;
	f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!buf) {
		fprintf(stderr, "replay: out of memory for %s\n", path);
		exit(1);
	}
	n = fread(buf, 1, (size_t)st.st_size, f);
	fclose(f);
	if (n != (size_t)st.st_size) {
		fprintf(stderr, "replay: %s: short read\n", path);
		exit(1);
	}
	/* the name first: if the input crashes, the log says which one */
	fprintf(stderr, "replay: %s (%zu bytes)\n", path, n);
	LLVMFuzzerTestOneInput(buf, n);
	free(buf);
	return 1;
}

static int run_path(const char *path)
{
	struct dirent **names;
	struct stat st;
	int n, ran = 0;

	if (stat(path, &st)) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return 0;
	}
	if (!S_ISDIR(st.st_mode))
		return run_file(path);
	n = scandir(path, &names, NULL, alphasort);
	if (n < 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return 0;
	}
	for (int i = 0; i < n; i++) {
		char p[4096];

		if (names[i]->d_name[0] != '.' &&
		    snprintf(p, sizeof(p), "%s/%s", path, names[i]->d_name) < (int)sizeof(p))
			ran += run_file(p);
		free(names[i]);
	}
	free(names);
	return ran;
}

int main(int argc, char **argv)
{
	int ran = 0;

#ifdef FUZZ_CORPUS_DIR
	if (argc < 2)
		ran += run_path(FUZZ_CORPUS_DIR);
#endif
	for (int i = 1; i < argc; i++)
		ran += run_path(argv[i]);
	if (!ran) {
		fprintf(stderr, "replay: no inputs found\n");
		return 1;
	}
	printf("replay: %d inputs, all passed\n", ran);
	return 0;
}
