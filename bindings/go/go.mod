module tephra

go 1.18
