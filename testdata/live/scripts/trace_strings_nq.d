/* trace() of strings, not quiet: "  %-33s" padding */
BEGIN { trace("a"); }
BEGIN { trace(""); }
BEGIN { trace("a string longer than the thirty-three column field"); }
BEGIN { trace("embedded\nnewline"); }
BEGIN { trace("x"); trace("y"); trace(12); }
BEGIN { trace(probefunc); trace(probename); }
BEGIN { exit(0); }
