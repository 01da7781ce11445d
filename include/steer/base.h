/*
 * steer/base.h — what every steer header needs: the C library headers the
 * API's types use, and ST_API, which marks every function of the core.
 *
 * ST_API: on Linux and macOS a function's visibility is default, so a shared
 * core exports it even when built with -fvisibility=hidden. On Windows the
 * DLL build (libsteer.dll) exports what it defines; a program that links
 * the DLL may define STEER_DLL to call its functions through the import
 * table directly (__declspec(dllimport)), and needs nothing for the static
 * library.
 */
#ifndef STEER_BASE_H
#define STEER_BASE_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32) && defined(STEER_DLL)
#define ST_API __declspec(dllimport)
#elif (defined(__GNUC__) || defined(__clang__)) && !defined(_WIN32)
#define ST_API __attribute__((visibility("default")))
#else
#define ST_API
#endif

#endif /* STEER_BASE_H */
