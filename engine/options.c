// SPDX-License-Identifier: GPL-2.0
/*
 * The engine's options and their parsing (options.h). fio calls an option's
 * callback with the job's options and the value; the models' options have
 * one slot each, so that one callback per slot knows which option it is.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "fio.h"
#include "optgroup.h"

#include "options.h"
#include "stats.h"

const char *const fc_mapping_names[] = {
	[FC_MAPPING_SHARED] = "shared", [FC_MAPPING_PRIVATE] = "private", NULL };

const struct fc_backend *const fc_backends[] = {
	&fc_backend_null, &fc_backend_psync, &fc_backend_libaio,
	&fc_backend_io_uring,
};
static const char *const backend_names[] = {
	"null", "psync", "libaio", "io_uring", NULL };

/*
 * The slot table is made once, at load, from the models' option tables,
 * before fio parses a job or forks one: read-only afterwards, the same in
 * every job process and thread.
 */
static const struct fc_model_option *slot_opt[FC_MAX_MODEL_OPTS];
static unsigned int nr_slots, nr_strs;
static unsigned int str_index[FC_MAX_MODEL_OPTS];	/* a string slot's strs[] */

static int slot_of(const char *name)
{
	unsigned int i;

	for (i = 0; i < nr_slots; i++)
		if (!strcmp(slot_opt[i]->name, name))
			return i;
	return -1;
}

/* The model's params from the parsed option values. */
void fc_model_params(const struct fc_model *m,
		     const struct flagcheck_options *o, void *params)
{
	const struct fc_model_option *mo;

	for (mo = m->options; mo && mo->name; mo++) {
		int slot = slot_of(mo->name);

		if (mo->is_string)
			*(const char **)((char *)params + mo->offset) =
				o->strs[str_index[slot]];
		else
			*(unsigned int *)((char *)params + mo->offset) =
				o->vals[slot];
	}
}

static void fc_list(char *buf, size_t len, const char *const *names)
{
	int i;

	buf[0] = '\0';
	for (i = 0; names[i]; i++) {
		if (i)
			strncat(buf, ", ", len - strlen(buf) - 1);
		strncat(buf, names[i], len - strlen(buf) - 1);
	}
}

/*
 * The string options are parsed here rather than by fio's posval table,
 * whose error in a job file names neither the bad value nor the option's
 * allowed values in one line.
 */
static int fc_parse_choice(const char *opt, const char *val,
			   const char *const *allowed, unsigned int *out)
{
	char list[256];
	int i;

	for (i = 0; allowed[i]; i++) {
		if (val && !strcmp(val, allowed[i])) {
			*out = i;
			return 0;
		}
	}
	fc_list(list, sizeof(list), allowed);
	log_err("flagcheck: %s=%s is not valid: allowed values are %s\n",
		opt, val ? val : "", list);
	return 1;
}

static int fc_parse_number(const char *opt, const char *val, unsigned int min,
			   unsigned int max, unsigned int *out)
{
	unsigned long long v = 0;
	char *end = NULL;

	errno = 0;
	if (val && *val >= '0' && *val <= '9')
		v = strtoull(val, &end, 10);
	if (!end || errno || *end || v < min || v > max) {
		log_err("flagcheck: %s=%s is not valid: a whole number from %u "
			"to %u is allowed\n", opt, val ? val : "", min, max);
		return 1;
	}
	*out = v;
	return 0;
}

static int str_model_cb(void *data, const char *str)
{
	struct flagcheck_options *o = data;
	const char *names[FC_MAX_MODELS + 1];
	int i;

	for (i = 0; fc_models[i] && i < FC_MAX_MODELS; i++)
		names[i] = fc_models[i]->name;
	names[i] = NULL;
	return fc_parse_choice("model", str, names, &o->model);
}

static int str_mapping_cb(void *data, const char *str)
{
	struct flagcheck_options *o = data;

	return fc_parse_choice("mapping", str, fc_mapping_names, &o->mapping);
}

static int str_backend_cb(void *data, const char *str)
{
	struct flagcheck_options *o = data;
	struct thread_data *td = o->td;

	if (fc_parse_choice("backend", str, backend_names, &o->backend))
		return 1;
	/*
	 * fio decides whether to lay out files from the engine flags before
	 * any engine hook runs, so a job's flags must follow its backend now.
	 */
	if (td)
		fc_td_engine_flags(td, fc_backends[o->backend]->fio_flags,
				   FC_BACKEND_FIO_FLAGS);
	return 0;
}

/*
 * Kept in the options, which fio copies whole to every job. Checked while
 * parsing, before any job starts, rather than at job end. An empty value
 * (a job file's ${FLAGCHECK_STATS} left unset) means no counters file.
 */
static int str_stats_cb(void *data, const char *str)
{
	struct flagcheck_options *o = data;
	char *copy, *slash;
	const char *dir = ".";
	struct stat st;
	int ret = 0;

	if (!str || !*str) {
		o->stats[0] = '\0';
		return 0;
	}
	if (strlen(str) >= sizeof(o->stats)) {
		log_err("flagcheck: flagcheck_stats=%.64s...: the path is longer "
			"than %zu bytes\n", str, sizeof(o->stats) - 1);
		return 1;
	}
	copy = strdup(str);
	if (!copy)
		return 1;
	slash = strrchr(copy, '/');
	if (slash) {
		*slash = '\0';
		dir = slash == copy ? "/" : copy;
	}
	if (!stat(str, &st) && S_ISDIR(st.st_mode)) {
		log_err("flagcheck: flagcheck_stats=%s is a directory: a file "
			"path is allowed (one JSON line per job)\n", str);
		ret = 1;
	} else if (access(dir, W_OK | X_OK)) {
		log_err("flagcheck: flagcheck_stats=%s: cannot create files in "
			"%s: %s\n", str, dir, strerror(errno));
		ret = 1;
	} else {
		strcpy(o->stats, str);
	}
	free(copy);
	return ret;
}

/*
 * A model option: parse it, then let every model that has it check it
 * against its other options (inject_every=0 with inject=eio, say), in
 * whichever order they come.
 */
static int fc_model_option_cb(unsigned int slot, void *data, const char *str)
{
	struct flagcheck_options *o = data;
	const struct fc_model_option *mo = slot_opt[slot];
	unsigned char params[FC_MAX_PARAMS] __attribute__((aligned(16)));
	char msg[512];
	int i, err;

	if (mo->is_string) {
		/* kept in the options, which fio copies whole to every job */
		err = strlen(str ? str : "") >= FC_MODEL_STR_LEN;
		if (err)
			log_err("flagcheck: %s is longer than %d bytes\n",
				mo->name, FC_MODEL_STR_LEN - 1);
		else
			strcpy(o->strs[str_index[slot]], str ? str : "");
	} else if (mo->choices)
		err = fc_parse_choice(mo->name, str, mo->choices, &o->vals[slot]);
	else
		err = fc_parse_number(mo->name, str, mo->min, mo->max,
				      &o->vals[slot]);
	if (err || o->check_failed)
		return err;

	for (i = 0; fc_models[i]; i++) {
		const struct fc_model *m = fc_models[i];

		if (!m->check)	/* params_size checked at load */
			continue;
		fc_model_params(m, o, params);
		if (m->check(params, msg, sizeof(msg))) {
			log_err("flagcheck: %s\n", msg);
			o->check_failed = 1;
			return 1;
		}
	}
	return 0;
}

/* fio's option callbacks get no option: one small trampoline per slot */
#define FC_SLOT_CB(n)							\
static int fc_slot_cb_##n(void *data, const char *str)			\
{									\
	return fc_model_option_cb(n, data, str);			\
}
FC_SLOT_CB(0) FC_SLOT_CB(1) FC_SLOT_CB(2) FC_SLOT_CB(3)
FC_SLOT_CB(4) FC_SLOT_CB(5) FC_SLOT_CB(6) FC_SLOT_CB(7)
FC_SLOT_CB(8) FC_SLOT_CB(9) FC_SLOT_CB(10) FC_SLOT_CB(11)
FC_SLOT_CB(12) FC_SLOT_CB(13) FC_SLOT_CB(14) FC_SLOT_CB(15)
FC_SLOT_CB(16) FC_SLOT_CB(17) FC_SLOT_CB(18) FC_SLOT_CB(19)
FC_SLOT_CB(20) FC_SLOT_CB(21) FC_SLOT_CB(22) FC_SLOT_CB(23)

static int (*const slot_cb[FC_MAX_MODEL_OPTS])(void *, const char *) = {
	fc_slot_cb_0, fc_slot_cb_1, fc_slot_cb_2, fc_slot_cb_3,
	fc_slot_cb_4, fc_slot_cb_5, fc_slot_cb_6, fc_slot_cb_7,
	fc_slot_cb_8, fc_slot_cb_9, fc_slot_cb_10, fc_slot_cb_11,
	fc_slot_cb_12, fc_slot_cb_13, fc_slot_cb_14, fc_slot_cb_15,
	fc_slot_cb_16, fc_slot_cb_17, fc_slot_cb_18, fc_slot_cb_19,
	fc_slot_cb_20, fc_slot_cb_21, fc_slot_cb_22, fc_slot_cb_23,
};

#define FC_GLUE_OPTS	4

/* The glue's own options; the models' follow, added at load. */
struct fio_option fc_options[FC_GLUE_OPTS + FC_MAX_MODEL_OPTS + 1] = {
	{
		.name	= "model",
		.lname	= "Modelled kernel path",
		.type	= FIO_OPT_STR,
		.cb	= str_model_cb,
		.help	= "The kernel hot path run before each I/O (the list is "
			  "filled in at load)",
		.def	= "filemap_check_errors",
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_INVALID,
	},
	{
		.name	= "mapping",
		.lname	= "Mapping sharing",
		.type	= FIO_OPT_STR,
		.cb	= str_mapping_cb,
		.help	= "shared: one model state (mapping) per file name for the "
			  "whole run; private: one per job and file (the "
			  "no-sharing control)",
		.def	= "shared",
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_INVALID,
	},
	{
		.name	= "backend",
		.lname	= "I/O backend",
		.type	= FIO_OPT_STR,
		.cb	= str_backend_cb,
		.help	= "What does the I/O after the modelled check: null (no "
			  "data transfer, like fio's null engine), psync "
			  "(pread/pwrite), libaio (io_submit), io_uring "
			  "(liburing); all but null on real files or devices",
		.def	= "null",
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_INVALID,
	},
	{
		.name	= "flagcheck_stats",
		.lname	= "Counters file",
		.type	= FIO_OPT_STR,
		.cb	= str_stats_cb,
		.help	= "Write each job's counters as one JSON line to this file "
			  "(empty: none)",
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_INVALID,
	},
};

/* The models' options become fio options, one per distinct name. */
static int fc_add_model_options(void)
{
	static char model_help[512] = "The kernel hot path run before each I/O:";
	int i;

	for (i = 0; fc_models[i]; i++)
		snprintf(model_help + strlen(model_help),
			 sizeof(model_help) - strlen(model_help), "%s %s",
			 i ? "," : "", fc_models[i]->name);
	fc_options[0].help = model_help;

	for (i = 0; fc_models[i]; i++) {
		const struct fc_model_option *mo;

		for (mo = fc_models[i]->options; mo && mo->name; mo++) {
			struct fio_option *fo;

			if (slot_of(mo->name) >= 0)
				continue;
			if (nr_slots == FC_MAX_MODEL_OPTS) {
				log_err("flagcheck: the models have more than %d "
					"options (FC_MAX_MODEL_OPTS): the engine "
					"cannot be loaded\n", FC_MAX_MODEL_OPTS);
				return 1;
			}
			if (mo->is_string && nr_strs == FC_MAX_MODEL_STRS) {
				log_err("flagcheck: the models have more than %d "
					"string options (FC_MAX_MODEL_STRS): the "
					"engine cannot be loaded\n",
					FC_MAX_MODEL_STRS);
				return 1;
			}
			fo = &fc_options[FC_GLUE_OPTS + nr_slots];
			fo->name = mo->name;
			fo->lname = mo->name;
			fo->type = FIO_OPT_STR;
			fo->cb = slot_cb[nr_slots];
			fo->help = mo->help;
			fo->def = mo->def;
			fo->category = FIO_OPT_C_ENGINE;
			fo->group = FIO_OPT_G_INVALID;
			if (mo->is_string) {	/* not given: "" */
				fo->def = NULL;
				str_index[nr_slots] = nr_strs++;
			}
			slot_opt[nr_slots++] = mo;
		}
	}
	return 0;
}

/*
 * No silent limits: a model the glue's tables cannot hold stops the load;
 * so do two models that mean different things by one option name.
 */
static int fc_check_models(void)
{
	char msg[512];
	int i;

	for (i = 0; fc_models[i]; i++) {
		if (i == FC_MAX_MODELS) {
			log_err("flagcheck: more than %d models "
				"(FC_MAX_MODELS): the engine cannot be "
				"loaded\n", FC_MAX_MODELS);
			return 1;
		}
		if (fc_models[i]->params_size > FC_MAX_PARAMS) {
			log_err("flagcheck: model %s has %zu bytes of params, "
				"more than FC_MAX_PARAMS (%d): the engine "
				"cannot be loaded\n", fc_models[i]->name,
				fc_models[i]->params_size, FC_MAX_PARAMS);
			return 1;
		}
	}
	if (fc_models_agree(fc_models, msg, sizeof(msg))) {
		log_err("flagcheck: %s: the engine cannot be loaded\n", msg);
		return 1;
	}
	return 0;
}

/* The model's options as a JSON object, for the stats file: malloc'd */
char *fc_options_json(const struct fc_model *m,
		      const struct flagcheck_options *o)
{
	const struct fc_model_option *mo;
	char *buf = NULL, *str;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	if (!out)
		return NULL;
	fputc('{', out);
	for (mo = m->options; mo && mo->name; mo++) {
		int slot = slot_of(mo->name);
		unsigned int v = o->vals[slot];

		fprintf(out, "%s\"%s\": ", mo == m->options ? "" : ", ",
			mo->name);
		if (mo->is_string) {
			str = fc_json_str(o->strs[str_index[slot]]);
			fputs(str ? str : "\"\"", out);
			free(str);
		} else if (mo->choices)
			fprintf(out, "\"%s\"", mo->choices[v]);
		else
			fprintf(out, "%u", v);
	}
	fputc('}', out);
	if (fclose(out)) {
		free(buf);
		return NULL;
	}
	return buf;
}

int fc_options_load(void)
{
	return fc_check_models() || fc_add_model_options();
}
