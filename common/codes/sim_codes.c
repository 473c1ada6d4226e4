/* sim_codes: the code list and its writers, EAF 3.0 and BORIS-style CSV (sim_codes.h). */
#include "sim_codes.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sim_csv.h"

int sim_codes_add(sim_codes *c, const char *tier, const char *value, const char *annotator, int64_t start_ms,
                  int64_t end_ms, sim_error *err)
{
    if (!tier || !tier[0]) return sim_error_set(err, SIM_EINVAL, "code: empty tier name");
    if (strlen(tier) >= SIM_CODES_NAME_MAX)
        return sim_error_set(err, SIM_EINVAL, "code: tier name \"%.40s...\" longer than %d bytes", tier,
                             SIM_CODES_NAME_MAX - 1);
    if (annotator && strlen(annotator) >= SIM_CODES_NAME_MAX)
        return sim_error_set(err, SIM_EINVAL, "code on tier \"%s\": annotator longer than %d bytes", tier,
                             SIM_CODES_NAME_MAX - 1);
    if (value && strlen(value) >= SIM_CODES_VALUE_MAX)
        return sim_error_set(err, SIM_EINVAL, "code on tier \"%s\": value longer than %d bytes", tier,
                             SIM_CODES_VALUE_MAX - 1);
    if (start_ms < 0 || end_ms < start_ms || end_ms > SIM_CODES_MS_MAX)
        return sim_error_set(err, SIM_ERANGE, "code on tier \"%s\": %" PRId64 "..%" PRId64 " ms: expected 0 <= start <= end <= %lld",
                             tier, start_ms, end_ms, SIM_CODES_MS_MAX);
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 64;
        sim_code *p = realloc(c->items, cap * sizeof *p);
        if (!p) return sim_error_set(err, SIM_ENOMEM, "codes: out of memory");
        c->items = p;
        c->cap = cap;
    }
    sim_code *k = &c->items[c->n++];
    memset(k, 0, sizeof *k);
    snprintf(k->tier, sizeof k->tier, "%s", tier);
    snprintf(k->value, sizeof k->value, "%s", value ? value : "");
    snprintf(k->annotator, sizeof k->annotator, "%s", annotator ? annotator : "");
    k->start_ms = start_ms;
    k->end_ms = end_ms;
    return SIM_OK;
}

void sim_codes_free(sim_codes *c)
{
    if (!c) return;
    free(c->items);
    c->items = NULL;
    c->n = c->cap = 0;
}

/* XML character data and attribute values: the five special characters as
 * references; control characters XML 1.0 forbids become U+FFFD. */
static void xml_text(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        switch (ch) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        case '\t': fputs("&#9;", f); break;
        case '\n': fputs("&#10;", f); break;
        case '\r': fputs("&#13;", f); break;
        default:
            if (ch < 0x20) fputs("\xEF\xBF\xBD", f);
            else fputc(ch, f);
        }
    }
}

typedef struct slot {
    int64_t ms;
    size_t ann; /* annotation index * 2 + (0 start, 1 end) */
} slot;

static int slot_cmp(const void *a, const void *b)
{
    const slot *x = a, *y = b;
    if (x->ms != y->ms) return x->ms < y->ms ? -1 : 1;
    return x->ann < y->ann ? -1 : x->ann > y->ann;
}

int sim_codes_eaf_write(FILE *f, const sim_codes_media *m, const sim_codes *c, sim_error *err)
{
    size_t n = c->n;
    slot *slots = n ? malloc(2 * n * sizeof *slots) : NULL;
    size_t *slot_id = n ? malloc(2 * n * sizeof *slot_id) : NULL; /* by annotation end: 1-based ts id */
    if (n && (!slots || !slot_id)) {
        free(slots);
        free(slot_id);
        return sim_error_set(err, SIM_ENOMEM, "eaf: out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        slots[2 * i] = (slot){c->items[i].start_ms, 2 * i};
        int64_t end = c->items[i].end_ms > c->items[i].start_ms ? c->items[i].end_ms
                                                                : c->items[i].start_ms + SIM_CODES_POINT_MS;
        slots[2 * i + 1] = (slot){end, 2 * i + 1};
    }
    if (n) qsort(slots, 2 * n, sizeof *slots, slot_cmp);
    for (size_t k = 0; k < 2 * n; k++) slot_id[slots[k].ann] = k + 1;

    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ANNOTATION_DOCUMENT AUTHOR=\"", f);
    xml_text(f, m->author ? m->author : "");
    fputs("\" DATE=\"", f);
    xml_text(f, m->date ? m->date : "1970-01-01T00:00:00Z");
    fputs("\" FORMAT=\"3.0\" VERSION=\"3.0\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\""
          " xsi:noNamespaceSchemaLocation=\"http://www.mpi.nl/tools/elan/EAFv3.0.xsd\">\n", f);
    fputs("    <HEADER MEDIA_FILE=\"\" TIME_UNITS=\"milliseconds\">\n", f);
    if (m->url) {
        fputs("        <MEDIA_DESCRIPTOR MEDIA_URL=\"", f);
        xml_text(f, m->url);
        fputs("\" MIME_TYPE=\"", f);
        xml_text(f, m->mime_type ? m->mime_type : "unknown");
        if (m->relative_url) {
            fputs("\" RELATIVE_MEDIA_URL=\"", f);
            xml_text(f, m->relative_url);
        }
        fputs("\"/>\n", f);
    }
    if (m->log_name) {
        fputs("        <PROPERTY NAME=\"sim.log\">", f);
        xml_text(f, m->log_name);
        fputs("</PROPERTY>\n", f);
    }
    fprintf(f, "        <PROPERTY NAME=\"sim.run\">%" PRId64 "</PROPERTY>\n", m->run);
    fprintf(f, "        <PROPERTY NAME=\"sim.t0_s\">%.6f</PROPERTY>\n", m->t0);
    fprintf(f, "        <PROPERTY NAME=\"lastUsedAnnotationId\">%zu</PROPERTY>\n", n);
    fputs("    </HEADER>\n    <TIME_ORDER>\n", f);
    for (size_t k = 0; k < 2 * n; k++)
        fprintf(f, "        <TIME_SLOT TIME_SLOT_ID=\"ts%zu\" TIME_VALUE=\"%" PRId64 "\"/>\n", k + 1, slots[k].ms);
    fputs("    </TIME_ORDER>\n", f);
    /* One TIER per tier name, in order of first appearance (quadratic in tiers, which are few). */
    for (size_t i = 0; i < n; i++) {
        bool first = true;
        for (size_t j = 0; j < i && first; j++) first = strcmp(c->items[j].tier, c->items[i].tier) != 0;
        if (!first) continue;
        fputs("    <TIER LINGUISTIC_TYPE_REF=\"default-lt\" TIER_ID=\"", f);
        xml_text(f, c->items[i].tier);
        if (c->items[i].annotator[0]) {
            fputs("\" ANNOTATOR=\"", f);
            xml_text(f, c->items[i].annotator);
        }
        fputs("\">\n", f);
        for (size_t j = i; j < n; j++) {
            if (strcmp(c->items[j].tier, c->items[i].tier)) continue;
            fprintf(f,
                    "        <ANNOTATION>\n            <ALIGNABLE_ANNOTATION ANNOTATION_ID=\"a%zu\" "
                    "TIME_SLOT_REF1=\"ts%zu\" TIME_SLOT_REF2=\"ts%zu\">\n                <ANNOTATION_VALUE>",
                    j + 1, slot_id[2 * j], slot_id[2 * j + 1]);
            xml_text(f, c->items[j].value);
            fputs("</ANNOTATION_VALUE>\n            </ALIGNABLE_ANNOTATION>\n        </ANNOTATION>\n", f);
        }
        fputs("    </TIER>\n", f);
    }
    fputs("    <LINGUISTIC_TYPE GRAPHIC_REFERENCES=\"false\" LINGUISTIC_TYPE_ID=\"default-lt\" "
          "TIME_ALIGNABLE=\"true\"/>\n", f);
    fputs("    <CONSTRAINT DESCRIPTION=\"Time subdivision of parent annotation's time interval, no time gaps "
          "allowed within this interval\" STEREOTYPE=\"Time_Subdivision\"/>\n"
          "    <CONSTRAINT DESCRIPTION=\"Symbolic subdivision of a parent annotation. Annotations refering to the "
          "same parent are ordered\" STEREOTYPE=\"Symbolic_Subdivision\"/>\n"
          "    <CONSTRAINT DESCRIPTION=\"1-1 association with a parent annotation\" "
          "STEREOTYPE=\"Symbolic_Association\"/>\n"
          "    <CONSTRAINT DESCRIPTION=\"Time alignable annotations within the parent annotation's time interval, "
          "gaps are allowed\" STEREOTYPE=\"Included_In\"/>\n",
          f);
    fputs("</ANNOTATION_DOCUMENT>\n", f);
    free(slots);
    free(slot_id);
    if (ferror(f)) return sim_error_set(err, SIM_EIO, "eaf: write failed");
    return SIM_OK;
}

static void boris_row(FILE *f, const char *obs, const char *media, int64_t ms, const sim_code *k, const char *status)
{
    sim_csv_field(f, obs);
    fputc(',', f);
    sim_csv_field(f, media);
    fprintf(f, ",%.3f,", ms / 1000.0);
    sim_csv_field(f, "driver");
    fputc(',', f);
    sim_csv_field(f, k->value[0] ? k->value : k->tier);
    fputc(',', f);
    sim_csv_field(f, k->tier);
    fputc(',', f);
    sim_csv_field(f, status);
    fputc(',', f);
    sim_csv_field(f, k->annotator);
    fputc('\n', f);
}

typedef struct brow {
    int64_t ms;
    size_t i;
    int kind; /* 0 STOP, 1 START, 2 POINT: at one time, stops first */
} brow;

static int brow_cmp(const void *a, const void *b)
{
    const brow *x = a, *y = b;
    if (x->ms != y->ms) return x->ms < y->ms ? -1 : 1;
    if (x->kind != y->kind) return x->kind - y->kind;
    return x->i < y->i ? -1 : x->i > y->i;
}

int sim_codes_boris_write(FILE *f, const sim_codes_media *m, const char *observation, const sim_codes *c,
                          sim_error *err)
{
    brow *rows = c->n ? malloc(2 * c->n * sizeof *rows) : NULL;
    if (c->n && !rows) return sim_error_set(err, SIM_ENOMEM, "boris: out of memory");
    size_t nr = 0;
    for (size_t i = 0; i < c->n; i++) {
        const sim_code *k = &c->items[i];
        if (k->start_ms == k->end_ms) rows[nr++] = (brow){k->start_ms, i, 2};
        else {
            rows[nr++] = (brow){k->start_ms, i, 1};
            rows[nr++] = (brow){k->end_ms, i, 0};
        }
    }
    if (nr) qsort(rows, nr, sizeof *rows, brow_cmp);
    const char *media = m->relative_url ? m->relative_url : m->url ? m->url : "";
    fputs("Observation id,Media file,Time,Subject,Behavior,Behavioral category,Status,Comment\n", f);
    static const char *const status[] = {"STOP", "START", "POINT"};
    for (size_t r = 0; r < nr; r++)
        boris_row(f, observation, media, rows[r].ms, &c->items[rows[r].i], status[rows[r].kind]);
    free(rows);
    if (ferror(f)) return sim_error_set(err, SIM_EIO, "boris: write failed");
    return SIM_OK;
}
