-- Allocates without end inside pcall: the memory cap must stop it.
local brain = {}
function brain.update(self)
    self.hoard = {}
    pcall(function()
        for i = 1, math.maxinteger do self.hoard[i] = string.rep("x", 4096) .. i end
    end)
    print("ESCAPED bomb")
end
return brain
