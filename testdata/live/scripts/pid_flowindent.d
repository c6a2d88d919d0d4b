/* flowindent with pid entry/return probes, not quiet */
/* @@cmd: @PROGDIR@/liveprog */
#pragma D option flowindent

pid$target::alpha:entry,
pid$target::alpha:return,
pid$target::beta:entry,
pid$target::beta:return,
pid$target::gamma_:entry,
pid$target::gamma_:return
{
}
