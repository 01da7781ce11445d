-- luacheck configuration: `luacheck scripts tests` from the repo root.
std = "lua54"
max_line_length = 120

-- Scenes and brains get no extra globals: everything comes from `require`.
files["scripts"] = { std = "lua54" }

-- Specs run under busted: describe, it, assert, spy, stub, before_each ...
files["tests/spec"] = { std = "lua54+busted" }
