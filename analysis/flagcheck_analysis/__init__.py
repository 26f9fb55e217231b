"""Runner and report for flagcheck: fio runs over a mode x numjobs matrix, then
LKP-style comparison, scaling tables and plots.  Needs numpy and scipy;
matplotlib is imported lazily by plot.py."""
