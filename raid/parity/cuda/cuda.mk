# raid/parity/cuda/cuda.mk: build fragment, included by the top-level Makefile (see its header).
# The GPU parity path. With nvcc ($CUDA_HOME/bin/nvcc, else /usr/local/cuda/bin/nvcc) the
# kernels and the host API are compiled for sm_80 and sm_90 plus PTX, with the CUDA runtime
# linked statically (every link of libraid.a gets LDLIBS_SYS's CUDA libraries); without it
# pq_gpu_stub.c answers every call with -ENODEV. Either way the kernels are also compiled by
# g++ under the CPU shim for pq_kernels_test, so `make test` checks them on every machine.

CUDA_DIR := raid/parity/cuda
NVCC := $(firstword $(if $(CUDA_HOME),$(wildcard $(CUDA_HOME)/bin/nvcc)) \
	$(wildcard /usr/local/cuda/bin/nvcc))

LIBRAID_SRCS += $(CUDA_DIR)/pq_plan.c $(CUDA_DIR)/pq_ranges.c $(CUDA_DIR)/pq_gpu_bench.c

ifneq ($(NVCC),)
CUDA_ROOT := $(patsubst %/bin/nvcc,%,$(NVCC))
CUDA_LIBDIR := $(firstword $(wildcard $(CUDA_ROOT)/lib64/libcudart_static.a \
	$(CUDA_ROOT)/targets/x86_64-linux/lib/libcudart_static.a))
NVCC_GENCODE := -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
	-gencode arch=compute_90,code=compute_90
NVCCFLAGS := -O3 -std=c++17 $(NVCC_GENCODE) -cudart static \
	-Xcompiler -fPIC,-Wall,-Wextra,-Wno-unused-parameter
EXTRA_OBJS += $(OBJ)/$(CUDA_DIR)/pq_gpu.cu.o $(OBJ)/$(CUDA_DIR)/pq_kernels.cu.o
LDLIBS_SYS += -L$(dir $(CUDA_LIBDIR)) -lcudart_static -ldl -lrt -lstdc++
PQ_GPU_BUILT := 1

$(OBJ)/$(CUDA_DIR)/%.cu.o: $(CUDA_DIR)/%.cu | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(NVCC) $(CPPFLAGS) $(NVCCFLAGS) -MMD -MP -c $< -o $@
else
LIBRAID_SRCS += $(CUDA_DIR)/pq_gpu_stub.c
PQ_GPU_BUILT := 0
$(info cuda: no nvcc ($$CUDA_HOME/bin or /usr/local/cuda/bin): building without GPU support)
endif

# The kernels on the CPU: the same source as C++ under pq_cuda_shim.h.
$(OBJ)/$(CUDA_DIR)/pq_kernels.shim.o: $(CUDA_DIR)/pq_kernels.cu | $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CXX) -x c++ -std=gnu++17 $(CPPFLAGS) -O2 -g -fPIC -fno-strict-aliasing $(SAN) $(WARN) \
		-Wno-unknown-pragmas $(DEPFLAGS) -c $< -o $@

# The archive alone, without the module list (raid/README.md): the parts it registers would
# pull nvcc's build of the kernels in beside the shim's.
TESTS += $(BUILD)/tests/pq_kernels_test
$(BUILD)/tests/pq_kernels_test: $(OBJ)/$(CUDA_DIR)/pq_kernels_test.o \
	$(OBJ)/$(CUDA_DIR)/pq_kernels.shim.o $(LIBRAID_A)
LDLIBS_pq_kernels_test := -lcmocka -lstdc++

# The registry of pinned memory (plain C): against a model, and racing threads.
TESTS += $(BUILD)/tests/pq_ranges_test
$(BUILD)/tests/pq_ranges_test: $(OBJ)/$(CUDA_DIR)/pq_ranges_test.o $(LIBRAID)
LDLIBS_pq_ranges_test := -lcmocka

# On a GPU it compares every op with pq_calls_base on the device; without one it checks that
# the context fails cleanly. tests/gpu/check.sh runs its full sweep.
TESTS += $(BUILD)/tests/pq_cuda_test
$(BUILD)/tests/pq_cuda_test: $(OBJ)/$(CUDA_DIR)/pq_cuda_test.o $(LIBRAID)
LDLIBS_pq_cuda_test := -lcmocka
$(OBJ)/$(CUDA_DIR)/pq_cuda_test.o: CPPFLAGS += -DPQ_GPU_BUILT=$(PQ_GPU_BUILT)

# raid-parity-bench prints the GPU rows in `make bench`; this one is for tests/gpu/check.sh.
BINS += $(BUILD)/bin/raid-gpu-bench
$(BUILD)/bin/raid-gpu-bench: $(OBJ)/$(CUDA_DIR)/pq_gpu_bench_main.o $(LIBRAID)
