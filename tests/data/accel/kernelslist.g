MemcpyHtoD,0x00007f1c8a000000,512
MemcpyHtoD,0x00007f1c8a000200,512
kernel-1.traceg
MemcpyHtoD,0x00007f1c8b000000,262144
kernel-2.traceg
