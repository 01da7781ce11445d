/*
 * input.h — keys and mouse for the window.
 */
#ifndef STEER_APP_INPUT_H
#define STEER_APP_INPUT_H

#include "render.h"

typedef struct input_result {
    bool screenshot; ///< P was pressed: save the next frame
} input_result;

/// Handles one event: the app's own keys, selection, and the scene callbacks.
void input_handle(app *a, const render_ctx *c, const SDL_Event *e, input_result *out);

#endif
