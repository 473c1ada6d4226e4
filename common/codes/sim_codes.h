/* sim_codes: behaviour codes as ELAN and BORIS exchange them (docs/codes.md).
 *
 * A code is an interval on one tier: tier name, value (the code itself, e.g. "phone"),
 * annotator, start and end in milliseconds on the media's time line (ELAN's
 * TIME_VALUE). A video made by `simctl video` shows at media time m the drive at log
 * time t0 + m / 1000 (sim_video.h); the .eaf written here records t0 and the run in
 * HEADER PROPERTY elements (sim.t0_s, sim.run) so that an import maps codes back onto
 * the log's time base exactly.
 *
 * Writing: sim_codes_eaf_write writes an EAF 3.0 document (ANNOTATION_DOCUMENT with
 * HEADER, TIME_ORDER, one TIER per distinct tier name in order of first appearance,
 * one LINGUISTIC_TYPE "default-lt", time-alignable); an interval of zero length (an
 * instant: a mark, a collision) is written SIM_CODES_POINT_MS long. sim_codes_boris_write writes the
 * same intervals as rows of BORIS' tabular events layout (a START and a STOP row per
 * interval, a POINT row for an interval of zero length).
 *
 * Reading: sim_codes_eaf_parse reads an .eaf held in memory with libxml2, without
 * network access, without loading external DTDs and refusing any DOCTYPE (so no
 * entities, internal or external). ALIGNABLE_ANNOTATIONs take their slots' times;
 * REF_ANNOTATIONs (child tiers) the times of the annotation they refer to; an
 * annotation on a slot without TIME_VALUE (an unaligned subdivision) is skipped and
 * counted. Bad input gives SIM_EINVAL and a message "NAME:LINE: ELEMENT ...: what".
 *
 * Ownership: sim_codes owns its items; sim_codes_free releases them. */
#ifndef SIM_CODES_H
#define SIM_CODES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim_error.h"

#define SIM_CODES_NAME_MAX 128  /* tier and annotator names, with the NUL */
#define SIM_CODES_VALUE_MAX 512 /* an annotation's value, with the NUL */
#define SIM_CODES_URL_MAX 2048
#define SIM_CODES_POINT_MS 100 /* an instant's length in an .eaf (ELAN has no zero-length annotations) */
#define SIM_CODES_MS_MAX 4294967295LL /* xsd:unsignedInt, EAF's TIME_VALUE */

typedef struct sim_code {
    char tier[SIM_CODES_NAME_MAX];
    char value[SIM_CODES_VALUE_MAX];
    char annotator[SIM_CODES_NAME_MAX];
    int64_t start_ms, end_ms; /* media time, 0 <= start_ms <= end_ms <= SIM_CODES_MS_MAX */
} sim_code;

typedef struct sim_codes {
    sim_code *items;
    size_t n, cap;
    /* What a parsed .eaf says about its media and the log (empty / false when nothing). */
    char media_url[SIM_CODES_URL_MAX];
    bool has_t0, has_run;
    double t0;       /* log time (s) of media time 0 */
    int64_t run;
    size_t skipped;  /* annotations on unaligned slots */
} sim_codes;

/* Appends one interval (names too long or times out of range: SIM_EINVAL naming them). */
int sim_codes_add(sim_codes *c, const char *tier, const char *value, const char *annotator, int64_t start_ms,
                  int64_t end_ms, sim_error *err);
void sim_codes_free(sim_codes *c);

typedef struct sim_codes_media {
    const char *url;          /* MEDIA_URL, absolute (file:///...); NULL: no MEDIA_DESCRIPTOR */
    const char *relative_url; /* RELATIVE_MEDIA_URL (./drive.mp4), relative to the .eaf; NULL: none */
    const char *mime_type;    /* e.g. video/mp4 */
    const char *author;       /* ANNOTATION_DOCUMENT AUTHOR ("" when NULL) */
    const char *date;         /* xsd:dateTime, e.g. 2026-12-02T18:00:00Z */
    const char *log_name;     /* PROPERTY sim.log (NULL: none) */
    double t0;                /* PROPERTY sim.t0_s */
    int64_t run;              /* PROPERTY sim.run */
} sim_codes_media;

int sim_codes_eaf_write(FILE *f, const sim_codes_media *m, const sim_codes *c, sim_error *err);
/* Columns: Observation id, Media file, Time (s, media time), Subject, Behavior,
 * Behavioral category (the tier), Status (START, STOP or POINT), Comment (the annotator). */
int sim_codes_boris_write(FILE *f, const sim_codes_media *m, const char *observation, const sim_codes *c,
                          sim_error *err);
/* Parses a BORIS-style events table (CSV, RFC 4180): a header row naming at least Time
 * (s), Behavior and Status (START, STOP, POINT; or a "Behavior type" column with those),
 * optionally Behavioral category (the tier; else Subject, else "boris") and Comment (the
 * annotator). A STOP closes the open START of the same tier and behavior; a POINT is an
 * instant. Errors name the file and line. */
int sim_codes_boris_parse(const char *data, size_t size, const char *name, sim_codes *out, sim_error *err);
/* Parses size bytes of an .eaf named name (for messages) into *out (initialised here). */
int sim_codes_eaf_parse(const char *data, size_t size, const char *name, sim_codes *out, sim_error *err);

#endif
