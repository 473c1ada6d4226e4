/* sim_xml_read: entity-free, network-free libxml2 parsing for the scenario readers
 * (see sim_xml_read.h). */
#include "sim_xml_read.h"

#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_file.h"

/* What the SAX hook saw: the first entity's name and line. */
typedef struct {
    char name[64];
    int line;
    int seen;
} entity_seen;

/* Stops the parse at the first entity declaration, before any reference to it can be
 * expanded: the refusal costs no more than reading up to the declaration. */
static void refuse_entity(void *vctx, const xmlChar *name, int type, const xmlChar *public_id,
                          const xmlChar *system_id, xmlChar *content)
{
    (void)type, (void)public_id, (void)system_id, (void)content;
    xmlParserCtxtPtr ctx = vctx;
    entity_seen *s = ctx->_private;
    if (!s->seen) {
        s->seen = 1;
        s->line = xmlSAX2GetLineNumber(ctx);
        snprintf(s->name, sizeof s->name, "%s", name ? (const char *)name : "?");
    }
    xmlStopParser(ctx);
}

xmlDocPtr sim_xml_read(const char *buf, size_t len, const char *name, int extra_opts, sim_error *err)
{
    if (len > (size_t)1 << 28) {
        sim_error_set(err, SIM_ETOOBIG, "%s: %zu bytes, expected at most 256 MiB", name, len);
        return NULL;
    }
    xmlParserCtxtPtr ctx = xmlNewParserCtxt();
    if (!ctx) {
        sim_error_set(err, SIM_ENOMEM, "%s: out of memory", name);
        return NULL;
    }
    entity_seen seen = {0};
    ctx->_private = &seen;
    ctx->sax->entityDecl = refuse_entity;
    /* No XML_PARSE_NOENT (entities stay unexpanded), no XML_PARSE_HUGE, no DTD loading. */
    int opts = (extra_opts & ~(XML_PARSE_NOENT | XML_PARSE_HUGE | XML_PARSE_DTDLOAD | XML_PARSE_DTDATTR |
                               XML_PARSE_DTDVALID | XML_PARSE_XINCLUDE)) |
               XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING;
    xmlDocPtr doc = xmlCtxtReadMemory(ctx, buf, (int)len, name, NULL, opts);
    if (seen.seen) {
        if (doc) xmlFreeDoc(doc);
        doc = NULL;
        sim_error_set(err, SIM_EINVAL,
                      "%s: %d: declares the entity \"%s\"; OpenSCENARIO and OpenDRIVE files need no "
                      "entities, and they are refused",
                      name, seen.line, seen.name);
    } else if (!doc || !ctx->wellFormed) {
        if (doc) xmlFreeDoc(doc);
        doc = NULL;
        const xmlError *e = xmlCtxtGetLastError(ctx);
        sim_error_set(err, SIM_EINVAL, "%s: %d: not well-formed XML: %s", name, e ? e->line : 0,
                      e && e->message ? e->message : "unknown error");
        /* libxml2's messages end in a newline. */
        if (err) err->msg[strcspn(err->msg, "\n")] = '\0';
    }
    xmlFreeParserCtxt(ctx);
    return doc;
}

xmlDocPtr sim_xml_read_file(const char *path, int extra_opts, sim_error *err)
{
    char *buf;
    size_t len;
    if (sim_file_read(path, &buf, &len, err)) return NULL;
    xmlDocPtr doc = sim_xml_read(buf, len, path, extra_opts, err);
    free(buf);
    return doc;
}
