/*
 * steer_module.c — steer.so, for `require "steer"` from stock lua5.4.
 *
 * luaopen_steer itself lives in bindings/steer.c so the app links the very
 * same code. Taking its address here is what pulls it, and with it the rest
 * of the bindings, out of the static library into the module.
 */
#include "steer_lua.h"

int (*const steer_module_open)(lua_State *L) = luaopen_steer;
