/* several BEGIN and END clauses run in declaration order */
#pragma D option quiet

BEGIN { printf("begin 1\n"); }
BEGIN { printf("begin 2\n"); }
END { printf("end 1\n"); }
BEGIN { printf("begin 3\n"); exit(0); }
BEGIN { printf("begin 4 (not reached after exit? it is)\n"); }
END { printf("end 2\n"); }
