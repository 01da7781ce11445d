-- empty.lua — a brain that does nothing: steer_bench's density rows time it
-- to separate the cost of dispatching an update from the brains' own work.
local brain = {}

function brain.update() end

return brain
