"""flagcheck run: running fio over the matrix, with the placement of the
jobs, fio's clock, what else used the machine, the line probe and fio
client/server hosts (the job file checks: guard/).  Nothing here imports report/."""
