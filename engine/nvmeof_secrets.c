/* nvmeof_secrets.c - keeping the DH-HMAC-CHAP secrets out of fio's output.  fio keeps every
 * option it parsed, value and all, and prints them in its JSON output ("job options", "global
 * options") and sends them to a client (--client): each value of a secret option is replaced
 * there by "<hidden>" in the process that prints, fio's main one (or the server), before any
 * output is made. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "nvmeof_engine.h"
#include "nvmeof_log.h"

#include "parse.h"

static const char *const nvmeof_secret_opts[] = { "dhchap_secret", "dhchap_ctrl_secret" };

static int nvmeof_is_secret(const char *name)
{
	for (size_t i = 0; i < sizeof(nvmeof_secret_opts) / sizeof(nvmeof_secret_opts[0]); i++)
		if (name && !strcmp(name, nvmeof_secret_opts[i]))
			return 1;
	return 0;
}

/* Replace the secrets' values in one of fio's option lists. */
static void nvmeof_hide_in(struct flist_head *list)
{
	struct flist_head *e;

	flist_for_each(e, list) {
		struct print_option *p = flist_entry(e, struct print_option, list);
		char *hidden;

		if (!p->value || !nvmeof_is_secret(p->name) || !strcmp(p->value, "<hidden>"))
			continue;
		if (!(hidden = strdup("<hidden>")))
			continue;
		explicit_bzero(p->value, strlen(p->value));
		free(p->value);
		p->value = hidden;
	}
}

int nvmeof_hide_secrets(struct thread_data *td)
{
	const struct nvmeof_options *o = td->eo;
	struct thread_data *global = get_global_options();

	nvmeof_hide_in(&td->opt_list);
	if (global)
		nvmeof_hide_in(&global->opt_list);
	/* fio sets a process's files up in fio's main process (create_serialize, the default) or
	 * runs jobs as threads of it; otherwise this runs in the job's own process, and the main
	 * one, which prints, keeps the secret: refuse rather than print it. */
	if (!td->o.use_thread && !td->o.create_serialize &&
	    ((o->dhchap_secret && *o->dhchap_secret) ||
	     (o->dhchap_ctrl_secret && *o->dhchap_ctrl_secret))) {
		nvmeof_job_err(td, "dhchap_secret: with create_serialize=0 and thread=0 fio would "
			       "print the secret in its JSON output (job options); use "
			       "dhchap_secret_file, or thread=1\n");
		return -EINVAL;
	}
	return 0;
}
