/*
 * scene_files.h — the scene's files (scene_files.c): paths and text, no Lua.
 * The scene list for Tab (app_list_scenes) is declared in app.h.
 */
#ifndef STEER_APP_SCENE_FILES_H
#define STEER_APP_SCENE_FILES_H

#include <stdbool.h>
#include <stddef.h>

typedef struct app app;

/// The folder of path in out ("." for a bare name).
void scene_dirname(const char *path, char *out, size_t n);
/// The module name of a file: its name without .lua.
void scene_module_of_file(const char *path, char *out, size_t n);
/// The module that the file real is (the scene's own, or what require
/// names it under the root it was seen in, else the other); false when it
/// is no module, or one that require would find elsewhere.
bool scene_module_of_path(const app *a, const char *real, int root, char *module, size_t n);

#endif
