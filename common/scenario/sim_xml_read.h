/* sim_xml_read: the one way this project's readers turn OpenSCENARIO and OpenDRIVE
 * bytes into a libxml2 tree. Neither format ever needs a DTD entity, and an internal
 * entity repeated in attributes costs quadratic time (a 100 KB file took a minute), so a
 * document that declares any <!ENTITY is refused while it is being read; the network is
 * off and XML_PARSE_HUGE is never set, which keeps libxml2's own size limits. */
#ifndef SIM_XML_READ_H
#define SIM_XML_READ_H

#include <libxml/tree.h>
#include <stddef.h>

#include "sim_error.h"

/* Parses len bytes of buf; name is the file named in messages. Extra libxml2 options
 * (e.g. XML_PARSE_NOBLANKS) are added to the fixed safe ones. Returns the document, owned
 * by the caller (xmlFreeDoc), or NULL with err filled: "name: line: not well-formed XML:
 * ..." or "name: line: declares an entity (...); OpenSCENARIO and OpenDRIVE files need none". */
xmlDocPtr sim_xml_read(const char *buf, size_t len, const char *name, int extra_opts, sim_error *err);

/* Reads the file at path, then as sim_xml_read with the path as the name. */
xmlDocPtr sim_xml_read_file(const char *path, int extra_opts, sim_error *err);

#endif
