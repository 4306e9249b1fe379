# workloads/workloads.mk: build fragment, included by the top-level Makefile (see its header).
