/* ffb_out: the force-feedback output with a clock passed in (see ffb_out.h). */
#include "ffb_out.h"

void in_ffb_out_event(in_ffb_out *o, double now, sim_ffb_event ev)
{
    static const char *const names[] = {"bus_lost", "paused", "resumed", "stopped", "exit"};
    sim_ffb_event_in(&o->ffb, now, ev);
    if (o->log) fprintf(o->log, "{\"t\":%.6f,\"event\":\"%s\"}\n", now - o->start_s, names[ev]);
}

void in_ffb_out_command(in_ffb_out *o, double now, const sim_ffb_command *c)
{
    sim_ffb_command_in(&o->ffb, now, c);
    if (o->log) fprintf(o->log, "{\"t\":%.6f,\"event\":\"command\",\"torque\":%g}\n", now - o->start_s, c->torque);
}

double in_ffb_out_update(in_ffb_out *o, double now, sim_ffb_effects *fx)
{
    sim_ffb_update(&o->ffb, now, fx);
    return fx->scale;
}

void in_ffb_out_played(in_ffb_out *o, double now, const sim_ffb_effects *fx)
{
    if (o->log) {
        fprintf(o->log,
                "{\"t\":%.6f,\"scale\":%.4f,\"level\":%d,\"dir_x\":%d,\"spring\":%d,"
                "\"damper\":%d,\"saturation\":%u,\"rumble\":%d,\"period_ms\":%u}\n",
                now - o->start_s, fx->scale, fx->constant_level, fx->dir_x, fx->spring_coeff,
                fx->damper_coeff, fx->saturation, fx->periodic_magnitude, fx->periodic_period_ms);
    }
}

bool in_ffb_exit_done(double scale, double since_exit_s)
{
    return scale <= 0 || since_exit_s > IN_FFB_EXIT_MAX_S;
}
