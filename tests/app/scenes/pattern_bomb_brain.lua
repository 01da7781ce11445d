-- The pattern bomb of pattern_bomb.lua, in a brain's update.
local brain = {}
function brain.update()
    local t0 = os.clock()
    local ok, err = pcall(string.find, string.rep("a", 3e5), ".-.-.-.-.-b")
    print(("ESCAPED pattern bomb: %s %s after %.2f s"):format(tostring(ok), tostring(err), os.clock() - t0))
end
return brain
