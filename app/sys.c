/*
 * sys.c — sys.h on POSIX and on Windows.
 */
#ifndef _WIN32
#define _XOPEN_SOURCE 700
#endif
#include "sys.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#include <io.h>
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#else
#include <dirent.h>
#include <sys/stat.h>
#include <time.h>
#endif

#ifdef _WIN32
bool app_stat(const char *path, app_file *f)
{
    WIN32_FILE_ATTRIBUTE_DATA a;
    memset(f, 0, sizeof *f);
    if (!GetFileAttributesExA(path, GetFileExInfoStandard, &a))
        return false;
    f->exists = true;
    f->is_dir = (a.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) != 0;
    f->is_file = !f->is_dir && (a.dwFileAttributes & FILE_ATTRIBUTE_DEVICE) == 0;
    /* 100 ns ticks since 1601 */
    unsigned long long t = ((unsigned long long)a.ftLastWriteTime.dwHighDateTime << 32) | a.ftLastWriteTime.dwLowDateTime;
    f->mtime_ns = (long long)(t * 100ull);
    f->size = (long long)(((unsigned long long)a.nFileSizeHigh << 32) | a.nFileSizeLow);
    return true;
}

char *app_realpath(const char *path, char *out)
{
    if (_access(path, 0) != 0)
        return NULL;
    return _fullpath(out, path, PATH_MAX);
}

struct app_dir {
    HANDLE h;
    WIN32_FIND_DATAA data;
    bool first;
};

app_dir *app_dir_open(const char *path)
{
    char pattern[PATH_MAX + 4];
    if (snprintf(pattern, sizeof pattern, "%s\\*", path) >= (int)sizeof pattern)
        return NULL;
    app_dir *d = calloc(1, sizeof *d);
    if (d == NULL)
        return NULL;
    d->h = FindFirstFileA(pattern, &d->data);
    if (d->h == INVALID_HANDLE_VALUE) {
        free(d);
        return NULL;
    }
    d->first = true;
    return d;
}

const char *app_dir_next(app_dir *d)
{
    if (!d->first && !FindNextFileA(d->h, &d->data))
        return NULL;
    d->first = false;
    return d->data.cFileName;
}

void app_dir_close(app_dir *d)
{
    if (d == NULL)
        return;
    FindClose(d->h);
    free(d);
}

void app_sleep(double seconds)
{
    if (seconds > 0.0)
        Sleep((DWORD)(seconds * 1000.0));
}

bool app_replace_file(const char *from, const char *to)
{
    return MoveFileExA(from, to, MOVEFILE_REPLACE_EXISTING) != 0;
}
#else
bool app_stat(const char *path, app_file *f)
{
    struct stat st;
    memset(f, 0, sizeof *f);
    if (stat(path, &st) != 0)
        return false;
    f->exists = true;
    f->is_file = S_ISREG(st.st_mode);
    f->is_dir = S_ISDIR(st.st_mode);
#ifdef __APPLE__
    f->mtime_ns = (long long)st.st_mtimespec.tv_sec * 1000000000LL + st.st_mtimespec.tv_nsec;
#else
    f->mtime_ns = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
#endif
    f->size = (long long)st.st_size;
    f->id = (unsigned long long)st.st_ino;
    return true;
}

char *app_realpath(const char *path, char *out) { return realpath(path, out); }

struct app_dir {
    DIR *d;
};

app_dir *app_dir_open(const char *path)
{
    DIR *d = opendir(path);
    if (d == NULL)
        return NULL;
    app_dir *r = malloc(sizeof *r);
    if (r == NULL) {
        closedir(d);
        return NULL;
    }
    r->d = d;
    return r;
}

const char *app_dir_next(app_dir *d)
{
    struct dirent *de = readdir(d->d);
    return de ? de->d_name : NULL;
}

void app_dir_close(app_dir *d)
{
    if (d == NULL)
        return;
    closedir(d->d);
    free(d);
}

void app_sleep(double seconds)
{
    if (seconds <= 0.0)
        return;
    struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    nanosleep(&ts, NULL);
}

bool app_replace_file(const char *from, const char *to) { return rename(from, to) == 0; }
#endif
