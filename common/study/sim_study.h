/* sim_study: a study file (docs/study.md): conditions with their scenario and
 * parameters, participants and groups, the design that orders each participant's
 * drives, the questionnaires; and the plan made from it. Pure: the caller reads the
 * file and hands the text over, so tests and `simctl study plan` share one code path.
 *
 * A sim_study is one allocation owned by the caller (sim_study_free). Errors name the
 * file and the JSON path: `example.json: conditions[1].params.light: found "noon",
 * expected one of day, dawn, dusk, night`. */
#ifndef SIM_STUDY_H
#define SIM_STUDY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "sim_error.h"
#include "sim_instrument.h"

#define SIM_STUDY_NAME_MAX 64
#define SIM_STUDY_PATH_MAX 512
#define SIM_STUDY_TEXT_MAX 1024
#define SIM_STUDY_CONDITIONS_MAX 32
#define SIM_STUDY_PARTICIPANTS_MAX 999
#define SIM_STUDY_GROUPS_MAX 16
#define SIM_STUDY_EXTRA_MAX 8           /* practice, before and after drives each */
#define SIM_STUDY_QUESTIONNAIRES_MAX 8
#define SIM_STUDY_PRIMARY_MAX 16
#define SIM_STUDY_INSTRUMENTS_MAX 6     /* per questionnaire, custom items counting as one */
#define SIM_PLAN_MAX (SIM_STUDY_CONDITIONS_MAX + 3 * SIM_STUDY_EXTRA_MAX)

/* The parameters a condition may set, each with the modules that act on it
 * (docs/study.md, "Condition parameters"). Anything else is refused by the parser,
 * except under "custom", which only clients outside the platform read (study.state). */
typedef struct sim_study_params {
    char light[16];           /* "" unset; day|dawn|dusk|night: render-node */
    bool has_density;
    double traffic_density;   /* vehicles per km per lane: traffic-node */
    bool has_seed;
    double traffic_seed;      /* traffic-node's random seed */
    char custom_json[SIM_STUDY_TEXT_MAX]; /* "" or a JSON object, verbatim */
} sim_study_params;

typedef struct sim_study_condition {
    char name[SIM_STUDY_NAME_MAX];
    char scenario[SIM_STUDY_PATH_MAX];  /* as written: relative to the study file */
    char vehicle[SIM_STUDY_PATH_MAX];   /* "" the session's default */
    char start[SIM_STUDY_NAME_MAX];     /* "" the scenario's first start point */
    double until_s;                     /* 0: until the scenario's end */
    char instructions[SIM_STUDY_TEXT_MAX]; /* shown as the drive starts; "" none */
    sim_study_params params;
} sim_study_condition;

typedef enum {
    SIM_DESIGN_WILLIAMS,   /* balanced-latin-square */
    SIM_DESIGN_LATIN,      /* latin-square (cyclic) */
    SIM_DESIGN_RANDOM,     /* seeded permutation per participant */
    SIM_DESIGN_EXPLICIT,   /* orders given in the file, used in turn */
} sim_design_kind;
extern const char *const sim_design_names[]; /* NULL-terminated, by sim_design_kind */

typedef enum { SIM_DRIVE_PRACTICE, SIM_DRIVE_FIXED, SIM_DRIVE_CONDITION } sim_drive_kind;
const char *sim_drive_kind_name(sim_drive_kind k);

typedef enum { SIM_Q_AFTER_EACH, SIM_Q_AT_END } sim_q_when;

typedef struct sim_questionnaire {
    char id[SIM_ITEM_ID_MAX];
    sim_q_when when;
    int n_instruments;
    sim_instrument instruments[SIM_STUDY_INSTRUMENTS_MAX]; /* copies; custom items form
                                                               one with scoring NONE */
} sim_questionnaire;

/* The study file's "session" section: how each drive's session starts at the lab
 * (docs/study.md, "The session"); `simctl study run`'s command line overrides it. The
 * name lists are the ones `simctl run` checks its own options against. */
extern const char *const sim_session_quality_names[]; /* low, medium, high; NULL-terminated */
extern const char *const sim_session_driver_names[];  /* script, wheel, keyboard, scenario */
#define SIM_SESSION_DISPLAY_MAX 63
typedef struct sim_study_session {
    bool fullscreen;
    int display;                      /* -1: unset */
    char screens[SIM_STUDY_PATH_MAX]; /* "" unset; as written: relative to the study file */
    char quality[16], driver[16];     /* "" unset; one of the names above */
    bool console;                     /* start the console (true, or an address) */
    char console_addr[64];            /* "" its default address */
} sim_study_session;

typedef struct sim_study {
    char name[SIM_STUDY_NAME_MAX];      /* [A-Za-z0-9_-]: a folder name */
    char description[SIM_STUDY_TEXT_MAX];
    int n_conditions;
    sim_study_condition conditions[SIM_STUDY_CONDITIONS_MAX];
    int n_participants;
    char participants[SIM_STUDY_PARTICIPANTS_MAX][SIM_STUDY_NAME_MAX];
    int group_of[SIM_STUDY_PARTICIPANTS_MAX];   /* index in groups, -1 none */
    int n_groups;
    char groups[SIM_STUDY_GROUPS_MAX][SIM_STUDY_NAME_MAX];
    sim_design_kind design;
    uint64_t seed;
    int n_within;                               /* the conditions the design orders */
    int within[SIM_STUDY_CONDITIONS_MAX];
    int n_orders;                               /* explicit: rows of condition indices */
    int orders[SIM_STUDY_CONDITIONS_MAX][SIM_STUDY_CONDITIONS_MAX];
    int n_practice, practice[SIM_STUDY_EXTRA_MAX];
    int n_before, before[SIM_STUDY_EXTRA_MAX];
    int n_after, after[SIM_STUDY_EXTRA_MAX];
    int n_questionnaires;
    sim_questionnaire questionnaires[SIM_STUDY_QUESTIONNAIRES_MAX];
    char welcome_text[SIM_STUDY_TEXT_MAX];      /* shown before the first drive; "" none */
    char between_text[SIM_STUDY_TEXT_MAX];      /* shown between drives; "" none */
    bool auto_go;                               /* each drive starts without the operator's go */
    char end_text[SIM_STUDY_TEXT_MAX];          /* shown at the end; "" none */
    sim_study_session session;
    int n_primary;                              /* primary_measures: the study page opens on */
    char primary[SIM_STUDY_PRIMARY_MAX][SIM_STUDY_NAME_MAX]; /* these (measure names), in order */
} sim_study;

/* Parses and validates a study file's text; name labels the messages. *out is new,
 * the caller's (sim_study_free). Returns SIM_OK or the first error's code with err
 * naming the file and path. Scenario and vehicle files are not opened here (simctl
 * study check does). */
int sim_study_parse(const char *text, size_t len, const char *name, sim_study **out,
                    sim_error *err);
void sim_study_free(sim_study *s);

int sim_study_condition_find(const sim_study *s, const char *name);   /* -1: none */
int sim_study_participant_find(const sim_study *s, const char *id);   /* -1: none */
int sim_study_questionnaire_find(const sim_study *s, const char *id); /* -1: none */

/* One drive of a participant's plan. */
typedef struct sim_plan_drive {
    int position;           /* 1-based, in the participant's whole sequence */
    int condition;          /* index in conditions */
    sim_drive_kind kind;
} sim_plan_drive;

typedef struct sim_plan {
    int n;
    sim_plan_drive drives[SIM_PLAN_MAX];
} sim_plan;

/* The rows of a square over n conditions (0..n-1) into rows (row-major, n per row,
 * room for 2 n rows); returns the number of rows. Williams: n rows for even n (each
 * condition in each position once, each ordered pair adjacent once), 2 n for odd n
 * (the square and its mirror: each pair adjacent twice). Latin: n cyclic rows. */
int sim_study_square(sim_design_kind kind, int n, int *rows);

/* The plan of participant p (index in participants): practice, before, the design's
 * order of the within conditions (participant p takes row p mod rows; random designs
 * draw a permutation from the seed and p), after. Same file, same plan. */
int sim_study_plan(const sim_study *s, int p, sim_plan *out);

/* The scenario of condition c adapted to it, in place: its start point moved first
 * (the one every module starts at), traffic density and seed, light. The file names
 * in it are sim_scenario_rewrite's (common/scenario), which calls this.
 * SIM_ENOTFOUND naming the start point when the scenario has none of that name. */
int sim_study_scenario_overlay(cJSON *scenario, const sim_study_condition *c, sim_error *err);

#endif

/* Answers to questionnaire q: n items named items[i], each a number values[i], a
 * text texts[i] (non-NULL), or skipped (values[i] NAN and no text: "prefer not to
 * answer"). SIM_OK when every scale item of q is answered in its range and on its
 * step or skipped, text items are text, and nothing else is given; otherwise the
 * first problem in err ("post: kss: found 10, expected 1..9 in steps of 1"; "post: not
 * answered: kss, ease (...)" naming every scale item not given). Text items may be
 * left out (an empty answer). */
int sim_questionnaire_check(const sim_questionnaire *q, int n, const char *const *items,
                            const double *values, const char *const *texts, sim_error *err);

/* The scores of one answered questionnaire: every standard instrument's scores
 * (sim_instrument_score, with its rule for skipped items) and each custom scale item
 * as a measure of its own (named by its id; NAN when skipped). An item not given
 * counts as skipped. Returns how many were written to out (room for max), or the
 * error of the first item out of range. */
int sim_questionnaire_scores(const sim_questionnaire *q, int n, const char *const *items,
                             const double *values, sim_score *out, int max, sim_error *err);
