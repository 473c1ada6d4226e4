/* sim_study_answers: checking a set of answers against its questionnaire and scoring
 * them (see sim_study.h): what the runner does before it commits answers, and what
 * the analysis does with them afterwards, in one place. */
#include <math.h>
#include <string.h>

#include "sim_study.h"

static int find(int n, const char *const *items, const char *id)
{
    for (int i = 0; i < n; i++)
        if (strcmp(items[i], id) == 0) return i;
    return -1;
}

static const sim_item *item_of(const sim_questionnaire *q, const char *id)
{
    for (int a = 0; a < q->n_instruments; a++)
        for (int i = 0; i < q->instruments[a].n_items; i++)
            if (strcmp(q->instruments[a].items[i].id, id) == 0) return &q->instruments[a].items[i];
    return NULL;
}

int sim_questionnaire_check(const sim_questionnaire *q, int n, const char *const *items,
                            const double *values, const char *const *texts, sim_error *err)
{
    for (int i = 0; i < n; i++) {
        const sim_item *it = item_of(q, items[i]);
        if (!it) return sim_error_set(err, SIM_EINVAL, "%s: %s: not an item of this questionnaire", q->id, items[i]);
        bool text = texts && texts[i];
        if (!text && isnan(values[i])) continue; /* skipped: "prefer not to answer" */
        if (it->kind == SIM_ITEM_TEXT && !text)
            return sim_error_set(err, SIM_EINVAL, "%s: %s: found a number, expected a text", q->id, items[i]);
        if (it->kind == SIM_ITEM_SCALE) {
            if (text)
                return sim_error_set(err, SIM_EINVAL, "%s: %s: found a text, expected a number %g..%g", q->id,
                                     items[i], it->min, it->max);
            if (!sim_item_value_ok(it, values[i]))
                return sim_error_set(err, SIM_EINVAL, "%s: %s: found %g, expected %g..%g in steps of %g", q->id,
                                     items[i], values[i], it->min, it->max, it->step);
        }
    }
    /* Every scale item is answered or explicitly skipped: an item left alone is no
     * answer, and naming all of them lets the test person fix the page at once. */
    char missing[400] = "";
    int n_missing = 0;
    for (int a = 0; a < q->n_instruments; a++)
        for (int i = 0; i < q->instruments[a].n_items; i++) {
            const sim_item *it = &q->instruments[a].items[i];
            if (it->kind != SIM_ITEM_SCALE || find(n, items, it->id) >= 0) continue;
            size_t used = strlen(missing);
            if (used < sizeof missing - 1)
                sim_format(missing + used, sizeof missing - used, "%s%s", n_missing ? ", " : "", it->id);
            n_missing++;
        }
    if (n_missing)
        return sim_error_set(err, SIM_EINVAL, "%s: not answered: %s (answer each item or skip it as \"prefer not to "
                             "answer\")", q->id, missing);
    return SIM_OK;
}

int sim_questionnaire_scores(const sim_questionnaire *q, int n, const char *const *items,
                             const double *values, sim_score *out, int max, sim_error *err)
{
    int k = 0;
    for (int a = 0; a < q->n_instruments; a++) {
        const sim_instrument *ins = &q->instruments[a];
        double v[SIM_INSTRUMENT_ITEMS_MAX];
        for (int i = 0; i < ins->n_items; i++) {
            if (ins->items[i].kind == SIM_ITEM_TEXT) {
                v[i] = NAN;
                continue;
            }
            /* Not given (a journal from before skipping existed) is missing too. */
            int j = find(n, items, ins->items[i].id);
            v[i] = j < 0 ? SIM_ITEM_MISSING : values[j];
        }
        if (ins->scoring == SIM_SCORE_NONE) {
            for (int i = 0; i < ins->n_items; i++) {
                if (ins->items[i].kind == SIM_ITEM_TEXT) continue;
                if (!isnan(v[i]) && !sim_item_value_ok(&ins->items[i], v[i]))
                    return sim_error_set(err, SIM_EINVAL, "%s: %s: found %g, expected %g..%g", q->id,
                                         ins->items[i].id, v[i], ins->items[i].min, ins->items[i].max);
                if (k >= max) return sim_error_set(err, SIM_ETOOBIG, "%s: more than %d scores", q->id, max);
                sim_format(out[k].name, sizeof out[k].name, "%s", ins->items[i].id);
                out[k++].value = v[i];
            }
            continue;
        }
        sim_score sc[SIM_SCORES_MAX];
        int m = sim_instrument_score(ins, v, sc, err);
        if (m < 0) return m;
        if (k + m > max) return sim_error_set(err, SIM_ETOOBIG, "%s: more than %d scores", q->id, max);
        memcpy(out + k, sc, sizeof sc[0] * (size_t)m);
        k += m;
    }
    return k;
}
