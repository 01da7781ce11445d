-- A runaway loop inside pcall: the budget error must not be swallowed.
local brain = {}
function brain.update()
    pcall(function() while true do end end)
    print("ESCAPED pcall")
end
return brain
