/* sim_msg_study: the study runner's topics (docs/protocol.md, "Study"; docs/study.md).
 *
 * `study.state` (the runner, `simctl study run`, publishes it on every change and once
 * a second): where a participant's session stands, and the questionnaire waiting to be
 * answered with its items, so any client (the operator console, a tablet) can show it.
 * `study.answer` (any client): the answers to the pending questionnaire, an object
 * {item: number | text | null}; null is an item the test person skipped ("prefer not
 * to answer"), stored as missing (NULL), never as a number.
 * `study.answered` (the runner): the verdict on one study.answer, sent only after the
 * answers were committed to the study database (ok) or refused (error names the item
 * and what was expected).
 *
 * `study.go` (the operator: the console's Go button, `simctl study go`): the next step
 * of the day may begin (phase "waiting" or "ready": the next drive starts).
 *
 * The phases of study.state, in the order of a day (docs/study.md, "The day"):
 * "waiting" (for the participant, before the first drive; the operator's go), then per
 * drive "instructions" (drive k's instructions while its session starts), "driving",
 * "questionnaire" (one per pending questionnaire), "ready" (waiting for the operator's
 * go before the next drive), and at the end "done" (thank you).
 *
 * Structs are plain storage; encode returns a new object (caller frees), decode fills
 * the struct and names the field that was wrong. */
#ifndef SIM_MSG_STUDY_H
#define SIM_MSG_STUDY_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "sim_error.h"
#include "sim_topics.h" /* the topic names: SIM_TOPIC_* */

#define SIM_STUDY_MSG_ITEMS_MAX 64
#define SIM_STUDY_MSG_TEXT_MAX 1024
#define SIM_STUDY_MSG_LABELS_MAX 9

typedef struct sim_msg_study_item {
    char id[48];
    char instrument[48];          /* "nasa-tlx", "ssq", ... or the questionnaire's id */
    char text[256];
    bool is_text;                 /* "type": "text" (free text) or "scale" */
    double min, max, step;        /* scale items */
    char low[64], high[64];       /* anchors at min and max ("" none) */
    int n_labels;                 /* "labels": the named points min, min + step, ...: */
    char labels[SIM_STUDY_MSG_LABELS_MAX][48]; /* a choice of that many ("" unnamed) */
} sim_msg_study_item;

typedef struct sim_msg_study_state {
    char study[64];
    char participant[64];
    char group[64];               /* "" none */
    char phase[16];               /* waiting, instructions, driving, questionnaire, ready, done */
    int drive;                    /* position of the current (or just finished) drive, 1-based */
    int drives;                   /* the participant's planned drives */
    char condition[64];
    char kind[16];                /* "practice", "condition", "fixed" */
    char message[SIM_STUDY_MSG_TEXT_MAX]; /* text for the test person; "" none */
    char params[SIM_STUDY_MSG_TEXT_MAX];  /* the condition's params object as JSON ("{}") */
    char questionnaire[48];       /* phase "questionnaire": its id */
    char waiting_on[160];         /* for the operator: what the day waits on ("waiting for
                                     the test person's answers to post"); "" none */
    int n_items;
    sim_msg_study_item items[SIM_STUDY_MSG_ITEMS_MAX];
} sim_msg_study_state;

typedef struct sim_msg_study_answer {
    char study[64];
    char participant[64];
    int drive;
    char questionnaire[48];
    char source[32];              /* who answered: "console", "simctl", ... ("" unknown) */
    int n;
    char item[SIM_STUDY_MSG_ITEMS_MAX][48];
    bool is_text[SIM_STUDY_MSG_ITEMS_MAX];
    double value[SIM_STUDY_MSG_ITEMS_MAX];      /* NAN (not is_text): skipped, null */
    char text[SIM_STUDY_MSG_ITEMS_MAX][512];
} sim_msg_study_answer;

typedef struct sim_msg_study_answered {
    char study[64];
    char participant[64];
    int drive;
    char questionnaire[48];
    bool ok;
    char error[512];              /* "" when ok */
} sim_msg_study_answered;

typedef struct sim_msg_study_go {
    char study[64];
    char participant[64];         /* required: whose day */
    int drive;                    /* the drive about to start (0: whichever is next) */
    char source[32];              /* who: "console", "simctl", ... */
} sim_msg_study_go;

cJSON *sim_msg_study_go_encode(const sim_msg_study_go *m);
int sim_msg_study_go_decode(const cJSON *msg, sim_msg_study_go *out, sim_error *err);
cJSON *sim_msg_study_state_encode(const sim_msg_study_state *m);
int sim_msg_study_state_decode(const cJSON *msg, sim_msg_study_state *out, sim_error *err);
cJSON *sim_msg_study_answer_encode(const sim_msg_study_answer *m);
int sim_msg_study_answer_decode(const cJSON *msg, sim_msg_study_answer *out, sim_error *err);
cJSON *sim_msg_study_answered_encode(const sim_msg_study_answered *m);
int sim_msg_study_answered_decode(const cJSON *msg, sim_msg_study_answered *out, sim_error *err);

#endif
