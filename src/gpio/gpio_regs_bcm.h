/*
 * The Broadcom BCM2835/6/7 and BCM2711 GPIO block (BCM2835 ARM Peripherals, section 6.1;
 * the BCM2711 keeps these registers and moves only the pull controls, which boardperf never
 * touches). Offsets from the block's start (bus 0x7e200000):
 *
 *   GPFSEL0..5  0x00..0x14  3 bits per pin, 10 pins a word: 000 input, 001 output, else alt
 *   GPSET0/1    0x1c/0x20   write 1 to drive the pin high; 0 bits do nothing
 *   GPCLR0/1    0x28/0x2c   write 1 to drive the pin low
 *   GPLEV0/1    0x34/0x38   the pin's level, whatever drives it
 *
 * Because set and clear are separate write-only registers, a write is one store that
 * touches only its own pin: no read, no race with another pin's owner. That is the store
 * wiringPi's digitalWrite makes.
 */
#ifndef BP_GPIO_GPIO_REGS_BCM_H
#define BP_GPIO_GPIO_REGS_BCM_H

#include <stdint.h>

#define BP_BCM_GPFSEL0 0x00u
#define BP_BCM_GPSET0 0x1cu
#define BP_BCM_GPCLR0 0x28u
#define BP_BCM_GPLEV0 0x34u
#define BP_BCM_FSEL_INPUT 0u
#define BP_BCM_FSEL_OUTPUT 1u
/* the last GPLEV word ends here; nothing past it is read or written */
#define BP_BCM_REGS_END 0x3cu

/* One pin's registers, worked out once so that a write is a single store. */
struct bp_gpio_bcm_pin {
	volatile uint32_t *fsel; /* its GPFSEL word */
	volatile uint32_t *set;  /* GPSET0 or GPSET1 */
	volatile uint32_t *clr;  /* GPCLR0 or GPCLR1 */
	volatile uint32_t *lev;  /* GPLEV0 or GPLEV1 */
	unsigned fsel_shift;     /* (pin % 10) * 3 */
	uint32_t mask;           /* 1 << (pin % 32) */
};

/* regs: the mapped block (its first byte is GPFSEL0); pin < 64. */
void bp_gpio_bcm_pin_init(struct bp_gpio_bcm_pin *p, volatile uint32_t *regs, unsigned pin);

/* The pin's 3-bit function (0 input, 1 output, 2..7 an alternate function). */
unsigned bp_gpio_bcm_function(const struct bp_gpio_bcm_pin *p);

/* Sets the pin's function, leaving the other nine pins of the word as they were. */
void bp_gpio_bcm_set_function(const struct bp_gpio_bcm_pin *p, unsigned fn);

/* The hot path: one store to GPSET or GPCLR. */
static inline void bp_gpio_bcm_write(const struct bp_gpio_bcm_pin *p, int value)
{
	*(value ? p->set : p->clr) = p->mask;
}

/* The level from GPLEV (the pin, not a remembered value). */
static inline int bp_gpio_bcm_read(const struct bp_gpio_bcm_pin *p)
{
	return (*p->lev & p->mask) != 0;
}

#endif
