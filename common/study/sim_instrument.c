/* sim_instrument: the standard questionnaires as constant tables, and their scoring
 * (see sim_instrument.h; docs/study.md has the sources and worked examples). */
#include <math.h>
#include <string.h>

#include "sim_instrument.h"

#define SCALE(i, t, lo, hi, st, a, b) {.id = i, .text = t, .kind = SIM_ITEM_SCALE, .min = lo, .max = hi, .step = st, .low = a, .high = b}

static const sim_instrument tlx = {
    .id = "nasa-tlx",
    .name = "NASA Task Load Index (raw TLX)",
    .source = "Hart & Staveland 1988; raw TLX without weighting: Hart 2006",
    .scoring = SIM_SCORE_TLX_RAW,
    .n_items = 6,
    .items = {
        SCALE("mental", "Mental demand: how mentally demanding was the task?", 0, 100, 5, "very low", "very high"),
        SCALE("physical", "Physical demand: how physically demanding was the task?", 0, 100, 5, "very low", "very high"),
        SCALE("temporal", "Temporal demand: how hurried or rushed was the pace of the task?", 0, 100, 5, "very low", "very high"),
        SCALE("performance", "Performance: how successful were you in accomplishing what you were asked to do?", 0, 100, 5, "perfect", "failure"),
        SCALE("effort", "Effort: how hard did you have to work to accomplish your level of performance?", 0, 100, 5, "very low", "very high"),
        SCALE("frustration", "Frustration: how insecure, discouraged, irritated, stressed and annoyed were you?", 0, 100, 5, "very low", "very high"),
    },
};

#define SUS_ITEM(i, t) SCALE(i, t, 1, 5, 1, "strongly disagree", "strongly agree")
static const sim_instrument sus = {
    .id = "sus",
    .name = "System Usability Scale",
    .source = "Brooke 1996, SUS: a quick and dirty usability scale",
    .scoring = SIM_SCORE_SUS,
    .n_items = 10,
    .items = {
        SUS_ITEM("sus1", "I think that I would like to use this system frequently."),
        SUS_ITEM("sus2", "I found the system unnecessarily complex."),
        SUS_ITEM("sus3", "I thought the system was easy to use."),
        SUS_ITEM("sus4", "I think that I would need the support of a technical person to be able to use this system."),
        SUS_ITEM("sus5", "I found the various functions in this system were well integrated."),
        SUS_ITEM("sus6", "I thought there was too much inconsistency in this system."),
        SUS_ITEM("sus7", "I would imagine that most people would learn to use this system very quickly."),
        SUS_ITEM("sus8", "I found the system very cumbersome to use."),
        SUS_ITEM("sus9", "I felt very confident using the system."),
        SUS_ITEM("sus10", "I needed to learn a lot of things before I could get going with this system."),
    },
};

/* Four named levels (Kennedy et al. 1993's form): a choice, never a slider. */
static const char *const ssq_levels[] = {"none", "slight", "moderate", "severe"};
#define SSQ_ITEM(i, t) {.id = i, .text = t, .kind = SIM_ITEM_SCALE, .min = 0, .max = 3, .step = 1, .low = "none", \
                        .high = "severe", .labels = ssq_levels, .n_labels = 4}
static const sim_instrument ssq = {
    .id = "ssq",
    .name = "Simulator Sickness Questionnaire",
    .source = "Kennedy, Lane, Berbaum & Lilienthal 1993, Int. J. Aviation Psychology 3(3)",
    .scoring = SIM_SCORE_SSQ,
    .n_items = 16,
    .items = {
        SSQ_ITEM("general_discomfort", "General discomfort"),
        SSQ_ITEM("fatigue", "Fatigue"),
        SSQ_ITEM("headache", "Headache"),
        SSQ_ITEM("eyestrain", "Eyestrain"),
        SSQ_ITEM("difficulty_focusing", "Difficulty focusing"),
        SSQ_ITEM("increased_salivation", "Increased salivation"),
        SSQ_ITEM("sweating", "Sweating"),
        SSQ_ITEM("nausea", "Nausea"),
        SSQ_ITEM("difficulty_concentrating", "Difficulty concentrating"),
        SSQ_ITEM("fullness_of_head", "Fullness of head"),
        SSQ_ITEM("blurred_vision", "Blurred vision"),
        SSQ_ITEM("dizzy_eyes_open", "Dizzy (eyes open)"),
        SSQ_ITEM("dizzy_eyes_closed", "Dizzy (eyes closed)"),
        SSQ_ITEM("vertigo", "Vertigo"),
        SSQ_ITEM("stomach_awareness", "Stomach awareness"),
        SSQ_ITEM("burping", "Burping"),
    },
};

/* The named odd steps of Akerstedt & Gillberg 1990; even steps are unnamed. */
static const char *const kss_levels[] = {"extremely alert", "", "alert", "", "neither alert nor sleepy", "",
                                         "sleepy, but no difficulty remaining awake", "",
                                         "extremely sleepy, fighting sleep"};
static const sim_instrument kss = {
    .id = "kss",
    .name = "Karolinska Sleepiness Scale",
    .source = "Akerstedt & Gillberg 1990, Int. J. Neuroscience 52",
    .scoring = SIM_SCORE_KSS,
    .n_items = 1,
    .items = {{.id = "kss", .text = "How sleepy have you felt during the last 5 minutes?", .kind = SIM_ITEM_SCALE,
               .min = 1, .max = 9, .step = 1, .low = "extremely alert", .high = "extremely sleepy, fighting sleep",
               .labels = kss_levels, .n_labels = 9}},
};

const char *const sim_instrument_standard_ids[] = {"nasa-tlx", "sus", "ssq", "kss", NULL};

const sim_instrument *sim_instrument_standard(const char *id)
{
    static const sim_instrument *const all[] = {&tlx, &sus, &ssq, &kss};
    for (size_t i = 0; id && i < sizeof all / sizeof all[0]; i++)
        if (strcmp(all[i]->id, id) == 0) return all[i];
    return NULL;
}

bool sim_item_value_ok(const sim_item *it, double value)
{
    if (it->kind != SIM_ITEM_SCALE || !isfinite(value) || value < it->min || value > it->max) return false;
    if (it->step <= 0) return true;
    double k = (value - it->min) / it->step;
    return fabs(k - round(k)) < 1e-9;
}

/* SSQ clusters, 1-based item numbers of Kennedy et al. 1993, Table 1 (an item may
 * count in two clusters: general discomfort is both N and O). */
static const int ssq_nausea[] = {1, 6, 7, 8, 9, 15, 16};
static const int ssq_oculo[] = {1, 2, 3, 4, 5, 9, 11};
static const int ssq_disor[] = {5, 8, 10, 11, 12, 13, 14};

/* NAN when an item of the cluster was skipped: NAN propagates through the sums. */
static double cluster_sum(const double *v, const int *items, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++) s += v[items[i] - 1];
    return s;
}

static void put(sim_score *out, int *n, const char *name, double value)
{
    sim_format(out[*n].name, sizeof out[*n].name, "%s", name);
    out[*n].value = value;
    (*n)++;
}

int sim_instrument_score(const sim_instrument *ins, const double *values, sim_score *out,
                         sim_error *err)
{
    for (int i = 0; i < ins->n_items; i++)
        if (ins->items[i].kind == SIM_ITEM_SCALE && !isnan(values[i]) && !sim_item_value_ok(&ins->items[i], values[i]))
            return sim_error_set(err, SIM_EINVAL, "%s: %s: found %g, expected %g..%g in steps of %g",
                                 ins->id, ins->items[i].id, values[i], ins->items[i].min,
                                 ins->items[i].max, ins->items[i].step);
    int n = 0;
    switch (ins->scoring) {
    case SIM_SCORE_NONE:
        break;
    case SIM_SCORE_TLX_RAW: {
        double sum = 0;
        for (int i = 0; i < 6; i++) {
            char name[SIM_ITEM_ID_MAX];
            sim_format(name, sizeof name, "tlx_%s", ins->items[i].id);
            put(out, &n, name, values[i]);
            sum += values[i];
        }
        put(out, &n, "tlx_raw", sum / 6);
        break;
    }
    case SIM_SCORE_SUS: {
        double sum = 0;
        int answered = 0;
        /* Items 1, 3, 5, 7, 9 are worded positively, 2, 4, ... negatively. Brooke: "If
         * a respondent feels that they cannot respond to a particular item, they should
         * mark the centre point of the scale", so a skipped item scores as 3. */
        for (int i = 0; i < 10; i++) {
            double x = isnan(values[i]) ? 3 : values[i];
            answered += !isnan(values[i]);
            sum += (i % 2 == 0) ? x - 1 : 5 - x;
        }
        put(out, &n, "sus", answered ? sum * 2.5 : NAN);
        break;
    }
    case SIM_SCORE_SSQ: {
        double N = cluster_sum(values, ssq_nausea, 7), O = cluster_sum(values, ssq_oculo, 7),
               D = cluster_sum(values, ssq_disor, 7);
        put(out, &n, "ssq_nausea", N * 9.54);
        put(out, &n, "ssq_oculomotor", O * 7.58);
        put(out, &n, "ssq_disorientation", D * 13.92);
        put(out, &n, "ssq_total", (N + O + D) * 3.74);
        break;
    }
    case SIM_SCORE_KSS:
        put(out, &n, "kss", values[0]);
        break;
    }
    return n;
}
