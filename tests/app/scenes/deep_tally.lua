-- deep_tally.lua — a helper module with state, required by deep_scene.lua
-- and deep_brain.lua: its count must survive its own reloads.

local M = { n = 0 }

function M.add()
    M.n = M.n + 1
end

return M
