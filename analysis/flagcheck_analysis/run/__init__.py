"""flagcheck run: running fio over the matrix, with the placement of the
jobs, fio's clock, what else used the machine, the line probe, job file
checks and fio client/server hosts.  Nothing here imports report/."""
