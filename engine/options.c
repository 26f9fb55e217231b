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

/*
 * The slot table is made once, at load, from the models' option tables,
 * before fio parses a job or forks one: read-only afterwards, the same in
 * every job process and thread. A slot is one fio option: a model option's
 * name, or a variant's older name (alias_of: the model it belongs to).
 */
struct fc_slot {
	const char *name;
	const struct fc_model_option *mo;	/* the first model's of the name */
	int alias_of;		/* an older name of that model's variant, or -1 */
	unsigned int str;	/* a string option's strs[] */
};

static struct fc_slot slots[FC_MAX_MODEL_OPTS];
static unsigned int nr_slots, nr_strs;

static int slot_of(const char *name)
{
	unsigned int i;

	for (i = 0; i < nr_slots; i++)
		if (!strcmp(slots[i].name, name))
			return i;
	return -1;
}

static bool slot_is_variant(unsigned int slot)
{
	return slots[slot].alias_of >= 0 ||
	       !strcmp(slots[slot].name, FC_VARIANT_OPTION);
}

/* The model's variant as given for the job, else the model's default */
static unsigned int fc_variant_value(const struct fc_model_option *v,
				     const struct flagcheck_options *o)
{
	int i = o->variant_by ? fc_option_choice(v, o->variant) : -1;

	return i >= 0 ? (unsigned int)i : (unsigned int)fc_option_choice(v, v->def);
}

/* The model's params from the parsed option values. */
void fc_model_params(const struct fc_model *m,
		     const struct flagcheck_options *o, void *params)
{
	const struct fc_model_option *mo;

	for (mo = m->options; mo && mo->name; mo++) {
		const struct fc_slot *s = &slots[slot_of(mo->name)];
		char *p = (char *)params + mo->offset;

		if (mo->is_string)
			*(const char **)p = o->strs[s->str];
		else if (mo == fc_model_variant_option(m))
			*(unsigned int *)p = fc_variant_value(mo, o);
		else
			*(unsigned int *)p = o->vals[s - slots];
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

	for (i = 0; fc_models[i]; i++)
		names[i] = fc_models[i]->name;
	names[i] = NULL;
	if (fc_parse_choice("model", str, names, &o->model))
		return 1;
	/* a variant given before is checked against the model at setup */
	o->model_set = 1;
	return 0;
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
	const char *names[FC_MAX_BACKENDS + 1];
	int i;

	for (i = 0; fc_backends[i]; i++)
		names[i] = fc_backends[i]->name;
	names[i] = NULL;
	if (fc_parse_choice("backend", str, names, &o->backend))
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
	if (!lstat(str, &st) && S_ISLNK(st.st_mode)) {
		log_err("flagcheck: flagcheck_stats=%s is a symbolic link: a "
			"regular file path is allowed (the counters file is never "
			"written through a link)\n", str);
		ret = 1;
	} else if (!stat(str, &st) && S_ISDIR(st.st_mode)) {
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

/* Every value some model's variant takes through @slot, for a message */
static void fc_variant_choices(unsigned int slot, char *buf, size_t len)
{
	const char *names[32];
	unsigned int n = 0;
	int i, j, k;

	for (i = 0; fc_models[i]; i++) {
		const struct fc_model_option *v =
			fc_model_variant_option(fc_models[i]);

		if (!v || (slots[slot].alias_of >= 0 && slots[slot].alias_of != i))
			continue;
		for (j = 0; v->choices[j] && n < 31; j++) {
			for (k = 0; k < (int)n && strcmp(names[k], v->choices[j]);
			     k++)
				;
			if (k == (int)n)
				names[n++] = v->choices[j];
		}
	}
	names[n] = NULL;
	fc_list(buf, len, names);
}

/*
 * The variant given (as variant= or as the job's model's older name) is
 * one the job's model takes: 0, or -1 with the message in @msg. Checked
 * once model= and the variant are both known (fio parses them in the order
 * given, a job file's [global] before its job's section).
 */
int fc_variant_check(const struct flagcheck_options *o, char *msg,
		     size_t len)
{
	const struct fc_model *m = fc_models[o->model];
	const struct fc_model_option *v = fc_model_variant_option(m);
	const struct fc_slot *s;
	char list[256];

	if (!o->variant_by)
		return 0;
	s = &slots[o->variant_by - 1];
	if (!v) {
		snprintf(msg, len, "%s=%s: model=%s has no variant option",
			 s->name, o->variant, m->name);
		return -1;
	}
	fc_list(list, sizeof(list), v->choices);
	if (s->alias_of >= 0 && fc_models[s->alias_of] != m) {
		snprintf(msg, len, "%s=%s is not an option of model=%s (it is "
			 "model=%s's older name for variant): model=%s takes "
			 "variant%s%s%s, allowed values are %s", s->name,
			 o->variant, m->name, fc_models[s->alias_of]->name,
			 m->name, v->alias ? " (or its older name " : "",
			 v->alias ? v->alias : "", v->alias ? ")" : "", list);
		return -1;
	}
	if (fc_option_choice(v, o->variant) < 0) {
		snprintf(msg, len, "%s=%s is not valid for model=%s: allowed "
			 "values are %s", s->name, o->variant, m->name, list);
		return -1;
	}
	return 0;
}

/*
 * variant= or an older name: a value some model's variant takes is kept,
 * and checked against the job's model once model= has been given (at
 * setup otherwise: fc_variant_check).
 */
static int fc_variant_cb(unsigned int slot, struct flagcheck_options *o,
			 const char *str)
{
	char list[256], msg[512];
	unsigned int i;

	for (i = 0; fc_models[i]; i++) {
		const struct fc_model_option *v =
			fc_model_variant_option(fc_models[i]);

		if (v && (slots[slot].alias_of < 0 ||
			  slots[slot].alias_of == (int)i) &&
		    fc_option_choice(v, str) >= 0)
			break;
	}
	if (!fc_models[i]) {
		fc_variant_choices(slot, list, sizeof(list));
		log_err("flagcheck: %s=%s is not valid: allowed values are %s "
			"(each model takes its own: see fio --enghelp)\n",
			slots[slot].name, str ? str : "", list);
		return 1;
	}
	snprintf(o->variant, sizeof(o->variant), "%s", str);
	o->variant_by = slot + 1;
	if (o->model_set && fc_variant_check(o, msg, sizeof(msg))) {
		log_err("flagcheck: %s\n", msg);
		return 1;
	}
	return 0;
}

/*
 * A model option: parse it, then let every model that has it check it
 * against its other options (inject_every=0 with inject=eio, say), in
 * whichever order they come.
 */
static int fc_model_option_cb(unsigned int slot, void *data, const char *str)
{
	struct flagcheck_options *o = data;
	const struct fc_model_option *mo = slots[slot].mo;
	unsigned char params[FC_MAX_PARAMS] __attribute__((aligned(16)));
	char msg[512];
	int i, err;

	if (slot_is_variant(slot)) {
		err = fc_variant_cb(slot, o, str);
	} else if (mo->is_string) {
		/* kept in the options, which fio copies whole to every job */
		err = strlen(str ? str : "") >= FC_MODEL_STR_LEN;
		if (err)
			log_err("flagcheck: %s is longer than %d bytes\n",
				mo->name, FC_MODEL_STR_LEN - 1);
		else
			strcpy(o->strs[slots[slot].str], str ? str : "");
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
		/* no .def: not given, the first model (o->model 0); and
		 * parsed first in a section, before the model's options */
		.prio	= 1,
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
		.help	= "What does the I/O after the modelled check (the "
			  "list is filled in at load)",
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

/* One more slot, as the fio option @name: 0, or 1 after saying why not */
static int fc_add_slot(const char *name, const char *help,
		       const struct fc_model_option *mo, int alias_of)
{
	struct fio_option *fo = &fc_options[FC_GLUE_OPTS + nr_slots];

	if (nr_slots == FC_MAX_MODEL_OPTS) {
		log_err("flagcheck: the models have more than %d options "
			"(FC_MAX_MODEL_OPTS): the engine cannot be loaded\n",
			FC_MAX_MODEL_OPTS);
		return 1;
	}
	if (mo->is_string && nr_strs == FC_MAX_MODEL_STRS) {
		log_err("flagcheck: the models have more than %d string options "
			"(FC_MAX_MODEL_STRS): the engine cannot be loaded\n",
			FC_MAX_MODEL_STRS);
		return 1;
	}
	fo->name = name;
	fo->lname = name;
	fo->type = FIO_OPT_STR;
	fo->cb = slot_cb[nr_slots];
	fo->help = help;
	/* not given: "" for a string, the job's model's own for a variant */
	fo->def = mo->is_string || alias_of >= 0 ||
		  !strcmp(name, FC_VARIANT_OPTION) ? NULL : mo->def;
	fo->category = FIO_OPT_C_ENGINE;
	fo->group = FIO_OPT_G_INVALID;
	slots[nr_slots].name = name;
	slots[nr_slots].mo = mo;
	slots[nr_slots].alias_of = alias_of;
	if (mo->is_string)
		slots[nr_slots].str = nr_strs++;
	nr_slots++;
	return 0;
}

/* The help of variant= and of each older name, from the models */
static const char *fc_variant_help(int alias_of)
{
	static char help[FC_MAX_MODELS + 1][512];
	char *h = help[alias_of + 1];
	size_t n = sizeof(help[0]);
	int i;

	if (alias_of >= 0) {
		snprintf(h, n, "variant= of model=%s under its older name, for "
			 "that model only: %s", fc_models[alias_of]->name,
			 fc_model_variant_option(fc_models[alias_of])->help);
		return h;
	}
	snprintf(h, n, "The model's form (default: the model's own):");
	for (i = 0; fc_models[i]; i++) {
		const struct fc_model_option *v =
			fc_model_variant_option(fc_models[i]);
		char list[128];

		if (!v)
			continue;
		fc_list(list, sizeof(list), v->choices);
		snprintf(h + strlen(h), n - strlen(h), "%s %s: %s (%s)",
			 i ? ";" : "", fc_models[i]->name, list, v->def);
	}
	return h;
}

/* backend='s help, from fc_backends[] */
static const char *fc_backend_help(void)
{
	static char help[512] = "What does the I/O after the modelled check "
				"(default: the first; all but null on real files "
				"or devices):";
	int i;

	for (i = 0; fc_backends[i]; i++)
		snprintf(help + strlen(help), sizeof(help) - strlen(help),
			 "%s %s: %s", i ? ";" : "", fc_backends[i]->name,
			 fc_backends[i]->help);
	return help;
}

/* The models' options become fio options, one per distinct name, and each
 * variant's older name one more. */
static int fc_add_model_options(void)
{
	static char model_help[512] = "The kernel hot path run before each I/O "
				      "(default: the first):";
	int i;

	for (i = 0; fc_models[i]; i++)
		snprintf(model_help + strlen(model_help),
			 sizeof(model_help) - strlen(model_help), "%s %s",
			 i ? ";" : "", fc_models[i]->name);
	fc_options[0].help = model_help;
	fc_options[2].help = fc_backend_help();

	for (i = 0; fc_models[i]; i++) {
		const struct fc_model_option *mo;

		for (mo = fc_models[i]->options; mo && mo->name; mo++) {
			bool variant = !strcmp(mo->name, FC_VARIANT_OPTION);

			if (slot_of(mo->name) < 0 &&
			    fc_add_slot(mo->name, variant ? fc_variant_help(-1) :
					mo->help, mo, -1))
				return 1;
			if (mo->alias && fc_add_slot(mo->alias,
						     fc_variant_help(i), mo, i))
				return 1;
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

	if (fc_models_refused()) {
		log_err("flagcheck: more than %d models (FC_MAX_MODELS): the "
			"engine cannot be loaded\n", FC_MAX_MODELS);
		return 1;
	}
	for (i = 0; fc_models[i]; i++) {
		if (fc_models[i]->params_size > FC_MAX_PARAMS) {
			log_err("flagcheck: model %s has %zu bytes of params, "
				"more than FC_MAX_PARAMS (%d): the engine "
				"cannot be loaded\n", fc_models[i]->name,
				fc_models[i]->params_size, FC_MAX_PARAMS);
			return 1;
		}
	}
	if (fc_backends_refused()) {
		log_err("flagcheck: more than %d backends (FC_MAX_BACKENDS): "
			"the engine cannot be loaded\n", FC_MAX_BACKENDS);
		return 1;
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
		unsigned int v = mo == fc_model_variant_option(m) ?
				 fc_variant_value(mo, o) : o->vals[slot];

		fprintf(out, "%s\"%s\": ", mo == m->options ? "" : ", ",
			mo->name);
		if (mo->is_string) {
			str = fc_json_str(o->strs[slots[slot].str]);
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
