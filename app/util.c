/*
 * util.c — the little every app module uses: the app's clock and display
 * text formatting.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#ifdef _WIN32
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#endif

#include "app.h"

double app_clock(void)
{
#ifdef _WIN32
    LARGE_INTEGER t, hz;
    QueryPerformanceCounter(&t);
    QueryPerformanceFrequency(&hz);
    return (double)t.QuadPart / (double)hz.QuadPart;
#else
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
#endif
}

void app_format(char *buf, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, n, fmt, ap);
    va_end(ap);
}
