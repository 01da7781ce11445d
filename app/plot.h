/*
 * plot.h — the selected agent's sampled history (plot.c), as the plots
 * window (ui_plot.cpp) reads it.
 */
#ifndef STEER_APP_PLOT_H
#define STEER_APP_PLOT_H

#include "app.h"

#define PLOT_SECONDS 10.0
#define PLOT_CAP 4096 /* samples: 10 s at dt >= 1/400 s */
#define PLOT_KEYS 4
#define PLOT_SERIES (2 + PLOT_KEYS)

typedef struct plot_point {
    long tick;
    float v[PLOT_SERIES]; ///< speed, |force|, then the keys' values
    unsigned has;         ///< bit i: v[i] is a number at this tick
    char state[24];
} plot_point;

struct plotter {
    st_agent_id id;
    const st_world *world;
    char keys[PLOT_KEYS][32];
    int nkeys;
    int n, head; ///< ring: the newest is s[(head + n - 1) % PLOT_CAP]
    plot_point s[PLOT_CAP];
};

#endif
