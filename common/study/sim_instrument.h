/* sim_instrument: questionnaires as data and their scoring (docs/study.md,
 * "Instruments"). The standard instruments (NASA-TLX raw, SUS, SSQ, KSS) are constant
 * tables; a study's custom Likert and free-text items are built from its file. Scoring
 * is a pure function of the answers: tests call it with the worked examples of the
 * papers. */
#ifndef SIM_INSTRUMENT_H
#define SIM_INSTRUMENT_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#include "sim_error.h"

#define SIM_ITEM_ID_MAX 48
#define SIM_ITEM_TEXT_MAX 256
#define SIM_INSTRUMENT_ITEMS_MAX 32
#define SIM_SCORES_MAX 8

typedef enum { SIM_ITEM_SCALE, SIM_ITEM_TEXT } sim_item_kind;

typedef struct sim_item {
    char id[SIM_ITEM_ID_MAX];       /* unique within its questionnaire */
    char text[SIM_ITEM_TEXT_MAX];   /* the question as the test person reads it */
    sim_item_kind kind;
    double min, max, step;          /* SIM_ITEM_SCALE: answers in [min, max] on step */
    char low[64], high[64];         /* the anchors at min and max ("" none) */
    /* Named points of the scale, labels[k] for min + k step (static tables of the
     * standard instruments, "" an unnamed point); NULL for none. */
    const char *const *labels;
    int n_labels;
} sim_item;

typedef enum {
    SIM_SCORE_NONE,     /* custom items: each answer is its own measure */
    SIM_SCORE_TLX_RAW,
    SIM_SCORE_SUS,
    SIM_SCORE_SSQ,
    SIM_SCORE_KSS,
} sim_scoring;

typedef struct sim_instrument {
    char id[SIM_ITEM_ID_MAX];       /* "nasa-tlx", "sus", "ssq", "kss", or a custom id */
    char name[96];
    char source[160];               /* where the scoring comes from */
    sim_scoring scoring;
    int n_items;
    sim_item items[SIM_INSTRUMENT_ITEMS_MAX];
} sim_instrument;

typedef struct sim_score {
    char name[SIM_ITEM_ID_MAX];     /* "tlx_raw", "sus", "ssq_nausea", ... */
    double value;
} sim_score;

/* The standard instrument named id ("nasa-tlx", "sus", "ssq", "kss"), NULL otherwise.
 * The tables are constant and live for the program. */
const sim_instrument *sim_instrument_standard(const char *id);
/* NULL-terminated list of the standard ids. */
extern const char *const sim_instrument_standard_ids[];

/* A missing answer: the test person skipped the item ("prefer not to answer"). It is
 * stored as NULL, never as a number; scoring applies each instrument's rule for it. */
#define SIM_ITEM_MISSING NAN

/* Whether value is a valid answer to a scale item (in range, on its step). */
bool sim_item_value_ok(const sim_item *it, double value);

/* Scores one filled questionnaire: values[i] answers items[i] (text items are not
 * read; NAN is a skipped item). Writes up to SIM_SCORES_MAX scores and returns how
 * many (0 for SIM_SCORE_NONE, whose items are measures by themselves), or SIM_EINVAL
 * naming the item whose value is out of its range. A score that cannot be computed
 * from the answers given is NAN (missing). Definitions and sources: docs/study.md.
 *   NASA-TLX raw: the 6 subscales (0..100) and tlx_raw, their mean (Hart 2006);
 *        a skipped subscale is missing and so is tlx_raw (no published rule).
 *   SUS: sum of (x-1) for odd items and (5-x) for even items, times 2.5 (Brooke 1996);
 *        a skipped item counts as the centre point 3, Brooke's own rule; missing when
 *        every item is skipped.
 *   SSQ: raw cluster sums N, O, D; ssq_nausea = 9.54 N, ssq_oculomotor = 7.58 O,
 *        ssq_disorientation = 13.92 D, ssq_total = 3.74 (N + O + D) (Kennedy 1993);
 *        a cluster with a skipped item is missing, and so is the total (no rule).
 *   KSS: the rating 1..9 (Akerstedt & Gillberg 1990); missing when skipped. */
int sim_instrument_score(const sim_instrument *ins, const double *values, sim_score *out,
                         sim_error *err);

#endif
