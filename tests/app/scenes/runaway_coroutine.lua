-- A runaway loop inside a coroutine, whose resume would return the error.
local brain = {}
function brain.update()
    coroutine.resume(coroutine.create(function() while true do end end))
    print("ESCAPED coroutine")
end
return brain
