MemcpyHtoD,0x0000000000010000,1024
kernel-1.traceg
kernel-2.traceg
