# tests/gpu/nvcc.sh - sourced by the GPU scripts: sets nvcc to the compiler to look for, $NVCC,
# else $CUDA_HOME/bin/nvcc when it is there, else /usr/local/cuda/bin/nvcc (as cuda.mk looks).
nvcc=${NVCC:-${CUDA_HOME:+$CUDA_HOME/bin/nvcc}}
[[ -n ${NVCC:-} || -x ${nvcc:-} ]] || nvcc=/usr/local/cuda/bin/nvcc
