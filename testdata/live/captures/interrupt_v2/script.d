/* ended by SIGINT after a few seconds: dtrace prints a newline at the top of its next pass */
tick-200ms { trace(i++); }
