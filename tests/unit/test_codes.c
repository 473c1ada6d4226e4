/* Unit tests of sim_codes (common/codes) and the drive log's codes table: an .eaf
 * written from codes validates against the EAF 3.0 schema of tests/data/eaf (written
 * from the format's documentation) and parses back to the same intervals (instants as
 * 100 ms); ELAN's REF_ANNOTATIONs take their parent's times; bad files are refused with
 * the file, line and element named; no DOCTYPE (so no entity) gets through; an import
 * into the log replaces the rows of its source, so a second import changes nothing. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <libxml/parser.h>
#include <libxml/xmlschemas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim_codes.h"
#include "sim_drivelog.h"

#ifndef SIM_SOURCE_ROOT
#define SIM_SOURCE_ROOT "."
#endif

static const sim_codes_media MEDIA = {.url = "file:///data/p01%20drive.mp4", .relative_url = "./p01%20drive.mp4",
                                      .mime_type = "video/mp4", .author = "test", .date = "2026-12-02T18:00:00Z",
                                      .log_name = "p01.sqlite", .t0 = 0.01, .run = 2};

static char *write_eaf(const sim_codes *c, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    assert_non_null(f);
    sim_error err = {0};
    assert_int_equal(sim_codes_eaf_write(f, &MEDIA, c, &err), 0);
    fclose(f);
    return buf;
}

static int schema_valid(const char *doc, size_t len)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/data/eaf/eaf-3.0-from-spec.xsd",
             access("tests/data/eaf/eaf-3.0-from-spec.xsd", R_OK) == 0 ? "." : SIM_SOURCE_ROOT);
    xmlSchemaParserCtxtPtr pc = xmlSchemaNewParserCtxt(path);
    assert_non_null(pc);
    xmlSchemaPtr schema = xmlSchemaParse(pc);
    assert_non_null(schema);
    xmlSchemaValidCtxtPtr vc = xmlSchemaNewValidCtxt(schema);
    xmlDocPtr d = xmlReadMemory(doc, (int)len, "test.eaf", NULL, XML_PARSE_NONET);
    assert_non_null(d);
    int rc = xmlSchemaValidateDoc(vc, d);
    xmlFreeDoc(d);
    xmlSchemaFreeValidCtxt(vc);
    xmlSchemaFree(schema);
    xmlSchemaFreeParserCtxt(pc);
    return rc;
}

static void round_trip(void **state)
{
    (void)state;
    sim_codes c = {0};
    sim_error err = {0};
    assert_int_equal(sim_codes_add(&c, "task", "T01", "sim", 5970, 24780, &err), 0);
    assert_int_equal(sim_codes_add(&c, "tor", "tor", "sim", 30000, 32450, &err), 0);
    assert_int_equal(sim_codes_add(&c, "mark", "a<b & \"c\"", "sim", 12000, 12000, &err), 0); /* an instant */
    assert_int_equal(sim_codes_add(&c, "task", "T02", "sim", 29130, 48250, &err), 0);
    size_t len;
    char *doc = write_eaf(&c, &len);
    assert_int_equal(schema_valid(doc, len), 0);
    assert_non_null(strstr(doc, "RELATIVE_MEDIA_URL=\"./p01%20drive.mp4\""));
    assert_non_null(strstr(doc, "<PROPERTY NAME=\"sim.t0_s\">0.010000</PROPERTY>"));
    sim_codes back;
    assert_int_equal(sim_codes_eaf_parse(doc, len, "test.eaf", &back, &err), 0);
    assert_int_equal(back.n, 4);
    assert_true(back.has_t0 && back.has_run);
    assert_true(back.t0 == 0.01);
    assert_int_equal(back.run, 2);
    assert_string_equal(back.media_url, "./p01%20drive.mp4");
    /* by tier, in order of first appearance: task T01, task T02, tor, mark */
    assert_string_equal(back.items[0].value, "T01");
    assert_int_equal(back.items[0].start_ms, 5970);
    assert_int_equal(back.items[0].end_ms, 24780);
    assert_string_equal(back.items[1].value, "T02");
    assert_int_equal(back.items[1].end_ms, 48250);
    assert_string_equal(back.items[2].tier, "tor");
    assert_int_equal(back.items[2].end_ms, 32450);
    assert_string_equal(back.items[3].value, "a<b & \"c\"");
    assert_int_equal(back.items[3].start_ms, 12000);
    assert_int_equal(back.items[3].end_ms, 12000 + SIM_CODES_POINT_MS);
    assert_string_equal(back.items[3].annotator, "sim");
    sim_codes_free(&back);
    free(doc);
    sim_codes_free(&c);
}

/* What ELAN writes for a coder's tier with a dependent (REF_ANNOTATION) tier under it. */
static const char ELAN_DOC[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<ANNOTATION_DOCUMENT AUTHOR=\"\" DATE=\"2026-12-02T19:00:00+01:00\" FORMAT=\"3.0\" VERSION=\"3.0\">\n"
    "<HEADER MEDIA_FILE=\"\" TIME_UNITS=\"milliseconds\">\n"
    "<MEDIA_DESCRIPTOR MEDIA_URL=\"file:///x/cam.mp4\" MIME_TYPE=\"video/mp4\"/>\n"
    "</HEADER>\n<TIME_ORDER>\n<TIME_SLOT TIME_SLOT_ID=\"ts1\" TIME_VALUE=\"1500\"/>\n"
    "<TIME_SLOT TIME_SLOT_ID=\"ts2\" TIME_VALUE=\"4000\"/>\n<TIME_SLOT TIME_SLOT_ID=\"ts3\"/>\n"
    "</TIME_ORDER>\n"
    "<TIER LINGUISTIC_TYPE_REF=\"default-lt\" TIER_ID=\"hands\" ANNOTATOR=\"AB\">\n"
    "<ANNOTATION><ALIGNABLE_ANNOTATION ANNOTATION_ID=\"a1\" TIME_SLOT_REF1=\"ts1\" TIME_SLOT_REF2=\"ts2\">"
    "<ANNOTATION_VALUE>one hand</ANNOTATION_VALUE></ALIGNABLE_ANNOTATION></ANNOTATION>\n"
    "<ANNOTATION><ALIGNABLE_ANNOTATION ANNOTATION_ID=\"a2\" TIME_SLOT_REF1=\"ts2\" TIME_SLOT_REF2=\"ts3\">"
    "<ANNOTATION_VALUE>unaligned</ANNOTATION_VALUE></ALIGNABLE_ANNOTATION></ANNOTATION>\n"
    "</TIER>\n"
    "<TIER LINGUISTIC_TYPE_REF=\"assoc\" PARENT_REF=\"hands\" TIER_ID=\"hands-note\">\n"
    "<ANNOTATION><REF_ANNOTATION ANNOTATION_ID=\"a3\" ANNOTATION_REF=\"a1\">"
    "<ANNOTATION_VALUE>left</ANNOTATION_VALUE></REF_ANNOTATION></ANNOTATION>\n"
    "</TIER>\n"
    "<LINGUISTIC_TYPE GRAPHIC_REFERENCES=\"false\" LINGUISTIC_TYPE_ID=\"default-lt\" TIME_ALIGNABLE=\"true\"/>\n"
    "<LINGUISTIC_TYPE CONSTRAINTS=\"Symbolic_Association\" LINGUISTIC_TYPE_ID=\"assoc\" TIME_ALIGNABLE=\"false\"/>\n"
    "</ANNOTATION_DOCUMENT>\n";

static void elan_file(void **state)
{
    (void)state;
    assert_int_equal(schema_valid(ELAN_DOC, sizeof ELAN_DOC - 1), 0);
    sim_codes c;
    sim_error err = {0};
    assert_int_equal(sim_codes_eaf_parse(ELAN_DOC, sizeof ELAN_DOC - 1, "coder.eaf", &c, &err), 0);
    assert_int_equal(c.n, 2);
    assert_int_equal(c.skipped, 1);
    assert_false(c.has_t0);
    assert_string_equal(c.items[0].tier, "hands");
    assert_string_equal(c.items[0].annotator, "AB");
    assert_int_equal(c.items[0].start_ms, 1500);
    assert_int_equal(c.items[0].end_ms, 4000);
    assert_string_equal(c.items[1].tier, "hands-note");
    assert_string_equal(c.items[1].value, "left");
    assert_int_equal(c.items[1].start_ms, 1500);
    assert_int_equal(c.items[1].end_ms, 4000);
    sim_codes_free(&c);
}

static char *replace(const char *s, const char *from, const char *to)
{
    const char *p = strstr(s, from);
    assert_non_null(p);
    size_t n = strlen(s) - strlen(from) + strlen(to) + 1;
    char *out = malloc(n);
    snprintf(out, n, "%.*s%s%s", (int)(p - s), s, to, p + strlen(from));
    return out;
}

static void refuse(const char *doc, const char *want)
{
    sim_codes c;
    sim_error err = {0};
    assert_int_equal(sim_codes_eaf_parse(doc, strlen(doc), "bad.eaf", &c, &err), SIM_EINVAL);
    if (!strstr(err.msg, want)) fail_msg("message \"%s\" lacks \"%s\"", err.msg, want);
    assert_int_equal(c.n, 0);
    assert_null(c.items);
}

static void bad_files(void **state)
{
    (void)state;
    char *d;
    refuse((d = replace(ELAN_DOC, "TIME_SLOT_REF2=\"ts2\"", "TIME_SLOT_REF2=\"ts9\"")),
           "bad.eaf:12: ALIGNABLE_ANNOTATION: \"a1\": TIME_SLOT_REF2 \"ts9\" names no TIME_SLOT");
    free(d);
    refuse((d = replace(ELAN_DOC, "TIME_VALUE=\"4000\"", "TIME_VALUE=\"1000\"")),
           "bad.eaf:12: ALIGNABLE_ANNOTATION: \"a1\" ends (1000 ms) before it starts (1500 ms)");
    free(d);
    refuse((d = replace(ELAN_DOC, "TIME_VALUE=\"4000\"", "TIME_VALUE=\"-4\"")),
           "bad.eaf:8: TIME_SLOT: TIME_SLOT \"ts2\": TIME_VALUE \"-4\" is not 0..4294967295 ms");
    free(d);
    refuse((d = replace(ELAN_DOC, "ANNOTATION_REF=\"a1\"", "ANNOTATION_REF=\"a7\"")),
           "bad.eaf: 1 REF_ANNOTATION(s) refer to no annotation");
    free(d);
    refuse((d = replace(ELAN_DOC, "TIME_SLOT_ID=\"ts3\"", "TIME_SLOT_ID=\"ts1\"")), "TIME_SLOT_ID \"ts1\" defined twice");
    free(d);
    refuse((d = replace(ELAN_DOC, "TIME_UNITS=\"milliseconds\"", "TIME_UNITS=\"PAL-frames\"")),
           "bad.eaf:3: HEADER: TIME_UNITS \"PAL-frames\": only milliseconds are read");
    free(d);
    refuse("<?xml version=\"1.0\"?>\n<TEI/>", "bad.eaf:2: TEI: the root element must be ANNOTATION_DOCUMENT");
    refuse("<ANNOTATION_DOCUMENT><HEADER></ANNOTATION_DOCUMENT>", "bad.eaf:1: not well-formed XML");
    /* entities: internal (the billion laughs) and external (a local file) are both refused */
    refuse("<?xml version=\"1.0\"?>\n<!DOCTYPE d [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;\">]>\n"
           "<ANNOTATION_DOCUMENT><TIME_ORDER/><TIER TIER_ID=\"&b;\"/></ANNOTATION_DOCUMENT>",
           "bad.eaf: a DOCTYPE is not accepted");
    refuse("<?xml version=\"1.0\"?>\n<!DOCTYPE d [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>\n"
           "<ANNOTATION_DOCUMENT><TIME_ORDER/><TIER TIER_ID=\"t\">&x;</TIER></ANNOTATION_DOCUMENT>",
           "bad.eaf: a DOCTYPE is not accepted");
}

/* The BORIS-style table: written from codes and read back equal (instants stay instants);
 * BORIS' own "Behavior type" column is read as Status; bad tables name file and line. */
static void boris_table(void **state)
{
    (void)state;
    sim_codes c = {0};
    sim_error err = {0};
    assert_int_equal(sim_codes_add(&c, "secondary", "phone, left hand", "AB", 20000, 25500, &err), 0);
    assert_int_equal(sim_codes_add(&c, "glance", "mirror \"left\"", "AB", 21500, 21500, &err), 0);
    assert_int_equal(sim_codes_add(&c, "secondary", "radio", "AB", 25500, 26000, &err), 0);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(sim_codes_boris_write(f, &MEDIA, "p01", &c, &err), 0);
    fclose(f);
    /* at 25.5 s the phone STOP comes before the radio START */
    assert_non_null(strstr(buf, "p01,./p01%20drive.mp4,25.500,driver,\"phone, left hand\",secondary,STOP,AB\n"
                                "p01,./p01%20drive.mp4,25.500,driver,radio,secondary,START,AB\n"));
    sim_codes back;
    assert_int_equal(sim_codes_boris_parse(buf, len, "t.csv", &back, &err), 0);
    assert_int_equal(back.n, 3);
    for (size_t i = 0; i < back.n; i++) {
        size_t j = 0;
        while (j < c.n && strcmp(c.items[j].value, back.items[i].value)) j++;
        assert_true(j < c.n);
        assert_string_equal(back.items[i].tier, c.items[j].tier);
        assert_string_equal(back.items[i].annotator, "AB");
        assert_int_equal(back.items[i].start_ms, c.items[j].start_ms);
        assert_int_equal(back.items[i].end_ms, c.items[j].end_ms);
    }
    sim_codes_free(&back);
    free(buf);
    sim_codes_free(&c);
    static const char BORIS8[] = "Observation id,Time,Subject,Behavior,Behavior type\r\n"
                                 "o1,1.25,driver,hands off,START\r\no1,3.5,driver,hands off,STOP\r\n";
    assert_int_equal(sim_codes_boris_parse(BORIS8, sizeof BORIS8 - 1, "b8.csv", &back, &err), 0);
    assert_int_equal(back.n, 1);
    assert_string_equal(back.items[0].tier, "driver");
    assert_int_equal(back.items[0].start_ms, 1250);
    assert_int_equal(back.items[0].end_ms, 3500);
    sim_codes_free(&back);
    static const struct { const char *doc, *want; } bad[] = {
        {"Time,Behavior\n1,x\n", "b.csv:1: the header needs the columns Time, Behavior and Status"},
        {"Time,Behavior,Status\n1,x,START\n", "b.csv:2: START of \"x\" without a STOP"},
        {"Time,Behavior,Status\n1,x,START\n\n3,y,STOP\n", "b.csv:4: STOP of \"y\" without a START"},
        {"Time,Behavior,Status\n4,x,START\n3,x,STOP\n", "b.csv:3: STOP of \"x\" at 3.000 s before its START (line 2)"},
        {"Time,Behavior,Status\nsoon,x,POINT\n", "b.csv:2: Time \"soon\": expected seconds >= 0"},
        {"Time,Behavior,Status\n1,x,MAYBE\n", "b.csv:2: Status \"MAYBE\": expected START, STOP or POINT"},
        {"Time,Behavior,Status\n1,\"x\n", "b.csv:3: a quoted field is not closed"},
        {"Time,Behavior,Status\n1,x\n", "b.csv:2: 2 fields, the header has 3"},
        {"", "b.csv: empty file"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err = (sim_error){0};
        assert_int_equal(sim_codes_boris_parse(bad[i].doc, strlen(bad[i].doc), "b.csv", &back, &err), SIM_EINVAL);
        if (!strstr(err.msg, bad[i].want)) fail_msg("case %zu: \"%s\" lacks \"%s\"", i, err.msg, bad[i].want);
        assert_null(back.items);
    }
}

typedef struct sink {
    sim_drivelog_code *v;
    size_t *n;
} sink;

static int keep(const sim_drivelog_code *c, void *user)
{
    sink *s = user;
    if (*s->n < 4) s->v[(*s->n)++] = *c;
    return 0;
}

static void log_table(void **state)
{
    (void)state;
    char path[] = "/tmp/test_codes_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    unlink(path);
    sim_error err = {0};
    sim_drivelog_writer *w;
    assert_int_equal(sim_drivelog_writer_open(path, NULL, &w, &err), 0);
    assert_int_equal(sim_drivelog_writer_close(w, &err), 0);
    sim_drivelog_code rows[2] = {{.run = 1, .t_start = 2.0, .t_end = 3.5, .tier = "secondary", .code = "phone",
                                  .annotator = "AB"},
                                 {.run = 1, .t_start = 4.0, .t_end = 4.25, .tier = "secondary", .code = "radio"}};
    size_t removed = 9;
    assert_int_equal(sim_drivelog_replace_codes(path, "coder.eaf", rows, 2, &removed, &err), 0);
    assert_int_equal(removed, 0);
    assert_int_equal(sim_drivelog_replace_codes(path, "coder.eaf", rows, 2, &removed, &err), 0);
    assert_int_equal(removed, 2);
    assert_int_equal(sim_drivelog_replace_codes(path, "other.eaf", rows, 1, &removed, &err), 0);
    assert_int_equal(removed, 0);
    /* the coder's edited file: one interval left, moved */
    rows[0].t_end = 3.75;
    assert_int_equal(sim_drivelog_replace_codes(path, "coder.eaf", rows, 1, &removed, &err), 0);
    assert_int_equal(removed, 2);
    sim_drivelog_reader *r;
    assert_int_equal(sim_drivelog_reader_open(path, &r, &err), 0);
    sim_drivelog_code got[4];
    size_t n = 0;
    sink sk = {got, &n};
    assert_int_equal(sim_drivelog_each_code(r, -1, keep, &sk, &err), 0);
    sim_drivelog_reader_close(r);
    assert_int_equal(n, 2);
    /* by run, tier, t_start, t_end */
    assert_string_equal(got[0].source, "other.eaf");
    assert_true(got[0].t_end == 3.5);
    assert_string_equal(got[1].source, "coder.eaf");
    assert_true(got[1].t_end == 3.75);
    assert_string_equal(got[1].annotator, "AB");
    /* not a drive log: refused, naming it */
    FILE *f = fopen(path, "w");
    fputs("hello", f);
    fclose(f);
    assert_true(sim_drivelog_replace_codes(path, "coder.eaf", rows, 1, &removed, &err) < 0);
    assert_non_null(strstr(err.msg, path));
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(round_trip), cmocka_unit_test(elan_file),
                                       cmocka_unit_test(bad_files), cmocka_unit_test(boris_table),
                                       cmocka_unit_test(log_table)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
