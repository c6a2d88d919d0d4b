/* trace() of every integer width, not quiet: column widths by type */
BEGIN { trace((char)-1); }
BEGIN { trace((unsigned char)255); }
BEGIN { trace((short)-1); }
BEGIN { trace((unsigned short)65535); }
BEGIN { trace((int)-1); }
BEGIN { trace((unsigned int)4294967295); }
BEGIN { trace((long)-1); }
BEGIN { trace((unsigned long)-1); }
BEGIN { trace((long long)-9223372036854775807 - 1); }
BEGIN { trace((unsigned long long)1); }
BEGIN { trace((int8_t)127); trace((int16_t)-300); trace((int32_t)70000); trace((int64_t)-5000000000); }
BEGIN { trace(0); trace(7); }
BEGIN { exit(0); }
