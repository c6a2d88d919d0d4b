/* decode.h - the shared main of dtconsume and dt2json. */
#ifndef DTC_DECODE_H
#define DTC_DECODE_H

/* deffmt: the output format when -f is not given ("text", "json"). */
int decode_main(int argc, char **argv, const char *deffmt);

#endif
