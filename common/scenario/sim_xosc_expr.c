/* sim_xosc_expr: OpenSCENARIO's `${...}` expressions (1.1+): numbers, `$name`
 * parameters, + - * / %, unary minus, parentheses, `and`, `or`, `not` (0 is false), and
 * the functions round, floor, ceil, sqrt, pow; evaluated in double precision. A
 * recursive descent parser over the text, bounded in depth. */
#include "sim_xosc_util.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NEST 64

typedef struct ex {
    xosc_parser *P;
    const char *s;
    int depth;
    char *msg;
    size_t size;
    bool failed;
} ex;

static double fail(ex *e, const char *what)
{
    if (!e->failed) snprintf(e->msg, e->size, "%s at \"%.20s\"", what, e->s);
    e->failed = true;
    return NAN;
}

static void skip(ex *e)
{
    while (*e->s == ' ' || *e->s == '\t' || *e->s == '\n' || *e->s == '\r') e->s++;
}

static bool word(ex *e, const char *w)
{
    skip(e);
    size_t n = strlen(w);
    if (strncmp(e->s, w, n) != 0 || isalnum((unsigned char)e->s[n]) || e->s[n] == '_') return false;
    e->s += n;
    return true;
}

static bool sym(ex *e, char c)
{
    skip(e);
    if (*e->s != c) return false;
    e->s++;
    return true;
}

static double expr(ex *e);

static double primary(ex *e)
{
    skip(e);
    if (++e->depth > MAX_NEST) return fail(e, "nested too deep");
    double v;
    if (sym(e, '(')) {
        v = expr(e);
        if (!sym(e, ')')) v = fail(e, "expected ')'");
    } else if (*e->s == '$') {
        char name[SIM_SB_NAME];
        size_t n = 0;
        e->s++;
        while ((isalnum((unsigned char)*e->s) || *e->s == '_') && n + 1 < sizeof name) name[n++] = *e->s++;
        name[n] = 0;
        const char *val = xosc_param(e->P, name);
        char *end;
        v = val ? strtod(val, &end) : NAN;
        if (!val) {
            e->s -= n;
            v = fail(e, "unknown parameter");
        } else if (end == val || *end || !isfinite(v)) {
            v = fail(e, "parameter is not a number");
        }
    } else if (isdigit((unsigned char)*e->s) || *e->s == '.') {
        char *end;
        v = strtod(e->s, &end);
        e->s = end;
    } else {
        static const char *const f1[] = {"round", "floor", "ceil", "sqrt"};
        for (int i = 0; i < 4; i++)
            if (word(e, f1[i])) {
                if (!sym(e, '(')) return fail(e, "expected '('");
                double a = expr(e);
                if (!sym(e, ')')) return fail(e, "expected ')'");
                e->depth--;
                return i == 0 ? round(a) : i == 1 ? floor(a) : i == 2 ? ceil(a) : sqrt(a);
            }
        if (word(e, "pow")) {
            if (!sym(e, '(')) return fail(e, "expected '('");
            double a = expr(e);
            if (!sym(e, ',')) return fail(e, "expected ','");
            double b = expr(e);
            if (!sym(e, ')')) return fail(e, "expected ')'");
            e->depth--;
            return pow(a, b);
        }
        if (word(e, "true")) v = 1;
        else if (word(e, "false")) v = 0;
        else v = fail(e, "expected a number, $parameter, function or '('");
    }
    e->depth--;
    return v;
}

static double unary(ex *e)
{
    if (sym(e, '-')) return -unary(e);
    if (word(e, "not")) return unary(e) == 0 ? 1 : 0;
    return primary(e);
}

static double term(ex *e)
{
    double v = unary(e);
    for (;;) {
        if (sym(e, '*')) v *= unary(e);
        else if (sym(e, '/')) v /= unary(e);
        else if (sym(e, '%')) v = fmod(v, unary(e));
        else return v;
    }
}

static double sum(ex *e)
{
    double v = term(e);
    for (;;) {
        if (sym(e, '+')) v += term(e);
        else if (sym(e, '-')) v -= term(e);
        else return v;
    }
}

static double conjunction(ex *e)
{
    double v = sum(e);
    while (word(e, "and")) {
        double b = sum(e);
        v = v != 0 && b != 0;
    }
    return v;
}

static double expr(ex *e)
{
    double v = conjunction(e);
    while (word(e, "or")) {
        double b = conjunction(e);
        v = v != 0 || b != 0;
    }
    return v;
}

bool xosc_expr_eval(xosc_parser *P, const char *text, double *out, char *msg, size_t size)
{
    ex e = {.P = P, .s = text, .msg = msg, .size = size};
    double v = expr(&e);
    skip(&e);
    if (!e.failed && *e.s) fail(&e, "unexpected text");
    if (!e.failed && !isfinite(v)) fail(&e, "result is not finite");
    *out = v;
    return !e.failed;
}
