// SPDX-License-Identifier: GPL-2.0
/*
 * Parsing an option's value, and the models' options as fio options
 * (options.h): each distinct name in the models' option tables (model.h) is
 * one slot, one fio option that options.c puts after the engine's own in
 * fc_options[]. fio calls an option's callback with the job's options and
 * the value; one callback per slot knows which option it is. Nothing here
 * calls into options.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fio.h"
#include "optgroup.h"

#include "options.h"

void fc_list(char *buf, size_t len, const char *const *names)
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
int fc_parse_choice(const char *opt, const char *val,
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

int fc_parse_number(const char *opt, const char *val, unsigned int min,
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

/*
 * The slot table is made once, at load, from the models' option tables,
 * before fio parses a job or forks one: read-only afterwards, the same in
 * every job process and thread. A slot is one fio option: a model option's
 * name.
 */
struct fc_slot {
	const char *name;
	const struct fc_model_option *mo;	/* the first model's of the name */
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

/* The model's variant as given for the job, else the model's default */
static unsigned int fc_variant_value(const struct fc_model_option *v,
				     const struct flagcheck_options *o)
{
	int i = o->variant_given ? fc_option_choice(v, o->variant) : -1;

	return i >= 0 ? (unsigned int)i : (unsigned int)fc_option_choice(v, v->def);
}

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

/* Every value some model's variant takes, for a message */
static void fc_variant_choices(char *buf, size_t len)
{
	const char *names[32];
	unsigned int n = 0;
	int i, j, k;

	for (i = 0; fc_models[i]; i++) {
		const struct fc_model_option *v =
			fc_model_variant_option(fc_models[i]);

		for (j = 0; v && v->choices[j] && n < 31; j++) {
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
 * The variant given is one the job's model takes: 0, or -1 with the
 * message in @msg. Checked once model= and variant= are both known (fio
 * parses them in the order given, a job file's [global] before its job's
 * section).
 */
int fc_variant_check(const struct flagcheck_options *o, char *msg,
		     size_t len)
{
	const struct fc_model *m = fc_models[o->model];
	const struct fc_model_option *v = fc_model_variant_option(m);
	char list[256];

	if (!o->variant_given)
		return 0;
	if (!v) {
		snprintf(msg, len, "variant=%s: model=%s has no variant option",
			 o->variant, m->name);
		return -1;
	}
	if (fc_option_choice(v, o->variant) < 0) {
		fc_list(list, sizeof(list), v->choices);
		snprintf(msg, len, "variant=%s is not valid for model=%s: "
			 "allowed values are %s", o->variant, m->name, list);
		return -1;
	}
	return 0;
}

/*
 * variant=: a value some model's variant takes is kept, and checked
 * against the job's model once model= has been given (at setup otherwise:
 * fc_variant_check); refused with that model's values where it is given,
 * else with every model's.
 */
static int fc_variant_cb(struct flagcheck_options *o, const char *str)
{
	char list[256], msg[512];
	unsigned int i;

	snprintf(o->variant, sizeof(o->variant), "%s", str ? str : "");
	o->variant_given = 1;
	if (o->model_set) {
		if (!fc_variant_check(o, msg, sizeof(msg)))
			return 0;
		log_err("flagcheck: %s\n", msg);
		return 1;
	}
	for (i = 0; fc_models[i]; i++) {
		const struct fc_model_option *v =
			fc_model_variant_option(fc_models[i]);

		if (v && fc_option_choice(v, str) >= 0)
			break;
	}
	if (!fc_models[i]) {
		fc_variant_choices(list, sizeof(list));
		log_err("flagcheck: variant=%s is not valid: allowed values are "
			"%s (each model takes its own: see fio --enghelp)\n",
			str ? str : "", list);
		return 1;
	}
	return 0;
}

/* Has model @m an option of @name? */
static bool has_option(const struct fc_model *m, const char *name)
{
	const struct fc_model_option *mo;

	for (mo = m->options; mo && mo->name; mo++)
		if (!strcmp(mo->name, name))
			return true;
	return false;
}

/* One slot's value into the options: 0, or 1 after saying why not */
static int fc_slot_parse(unsigned int slot, struct flagcheck_options *o,
			 const char *str)
{
	const struct fc_model_option *mo = slots[slot].mo;

	if (!strcmp(mo->name, FC_VARIANT_OPTION))
		return fc_variant_cb(o, str);
	if (mo->is_string) {
		/* kept in the options, which fio copies whole to every job */
		if (strlen(str ? str : "") >= FC_MODEL_STR_LEN) {
			log_err("flagcheck: %s is longer than %d bytes\n",
				mo->name, FC_MODEL_STR_LEN - 1);
			return 1;
		}
		strcpy(o->strs[slots[slot].str], str ? str : "");
		return 0;
	}
	if (mo->choices)
		return fc_parse_choice(mo->name, str, mo->choices,
				       &o->vals[slot]);
	return fc_parse_number(mo->name, str, mo->min, mo->max,
			       &o->vals[slot]);
}

/*
 * A model option: parse it, then let every model that has it check it
 * against its other options (inject_every=0 with inject=eio, say), in
 * whichever order they come. A model's params are its own options' values
 * only, so no other model's check can change its answer.
 */
static int fc_model_option_cb(unsigned int slot, void *data, const char *str)
{
	struct flagcheck_options *o = data;
	unsigned char params[FC_MAX_PARAMS] __attribute__((aligned(16)));
	char msg[1024];
	int i, err;

	err = fc_slot_parse(slot, o, str);
	if (err || o->check_failed)
		return err;

	for (i = 0; fc_models[i]; i++) {
		const struct fc_model *m = fc_models[i];

		/* params_size checked at load */
		if (!m->check || !has_option(m, slots[slot].name))
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

/*
 * fio calls an option's callback with the job's options and the value only,
 * not the option: one trampoline per slot says which slot it is, made from
 * the one list of slot numbers, FC_SLOTS, as many as FC_MAX_MODEL_OPTS.
 * fio's .off1 (fio parses, into the options struct) would word the
 * refusals itself, refuse an empty string, and leave a model's check to
 * the job's init; .verify, given the option, adds fio's help to a refusal
 * (docs/engine.md, "One table per model, one callback per option").
 */
#define FC_SLOTS(X)							\
	X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)	\
	X(12) X(13) X(14) X(15) X(16) X(17) X(18) X(19) X(20) X(21)	\
	X(22) X(23)
#define FC_SLOT_CB(n)							\
static int fc_slot_cb_##n(void *data, const char *str)			\
{									\
	return fc_model_option_cb(n, data, str);			\
}
#define FC_SLOT_CB_ENTRY(n)	fc_slot_cb_##n,

FC_SLOTS(FC_SLOT_CB)

static int (*const slot_cb[])(void *, const char *) = {
	FC_SLOTS(FC_SLOT_CB_ENTRY)
};
_Static_assert(sizeof(slot_cb) / sizeof(slot_cb[0]) == FC_MAX_MODEL_OPTS,
	       "FC_SLOTS lists one slot per FC_MAX_MODEL_OPTS");

/* variant='s help, from the models */
static const char *fc_variant_help(void)
{
	static char help[512];
	size_t n = sizeof(help);
	int i;

	snprintf(help, n, "The model's variant (default: the model's own):");
	for (i = 0; fc_models[i]; i++) {
		const struct fc_model_option *v =
			fc_model_variant_option(fc_models[i]);
		char list[128];

		if (!v)
			continue;
		fc_list(list, sizeof(list), v->choices);
		snprintf(help + strlen(help), n - strlen(help), "%s %s: %s (%s)",
			 i ? ";" : "", fc_models[i]->name, list, v->def);
	}
	return help;
}

/* One more slot, the fio option @fo: 0, or 1 after saying why not */
static int fc_add_slot(struct fio_option *fo, const struct fc_model_option *mo)
{
	bool variant = !strcmp(mo->name, FC_VARIANT_OPTION);

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
	fo->name = mo->name;
	fo->lname = mo->name;
	fo->type = FIO_OPT_STR;
	fo->cb = slot_cb[nr_slots];
	fo->help = variant ? fc_variant_help() : mo->help;
	/* not given: "" for a string, the job's model's own for a variant */
	fo->def = mo->is_string || variant ? NULL : mo->def;
	fo->category = FIO_OPT_C_ENGINE;
	fo->group = FIO_OPT_G_INVALID;
	slots[nr_slots].name = mo->name;
	slots[nr_slots].mo = mo;
	if (mo->is_string)
		slots[nr_slots].str = nr_strs++;
	nr_slots++;
	return 0;
}

int fc_add_model_options(struct fio_option *fo)
{
	const struct fc_model_option *mo;
	int i;

	for (i = 0; fc_models[i]; i++)
		for (mo = fc_models[i]->options; mo && mo->name; mo++)
			if (slot_of(mo->name) < 0 &&
			    fc_add_slot(&fo[nr_slots], mo))
				return 1;
	return 0;
}
