/*
 * Fixed keys for the signature benchmarks, generated once for boardperf with
 * `openssl genpkey` and used for nothing else: they protect nothing. Fixed keys make runs
 * comparable across boards (as `openssl speed`'s built-in keys do) and spare a slow board
 * the minutes an RSA-4096 key generation can take.
 */
#include "cpu/test_keys.h"

#include <string.h>

#include <openssl/bio.h>
#include <openssl/pem.h>

struct test_key {
	const char *name;
	const char *pem;
};

static const struct test_key keys[] = {
	{ "rsa1024",
	  "-----BEGIN PRIVATE KEY-----\n"
	  "MIICdQIBADANBgkqhkiG9w0BAQEFAASCAl8wggJbAgEAAoGBAJ1Pb62IVP7D2cpO\n"
	  "DCQ1ufKBJ/P1NzWav4fW/7xVR32AG4H3uG0OIH00t9DmjyQhw96PujKqabiVVf0C\n"
	  "RN0y4MBIo1TYjYJI5hb6+gvTAwToQESZi09iIUOPCKeVSAYckw3CuGSM6S0p7mJa\n"
	  "BbCylLhrDWetT9kdbzO1hA/4goT5AgMBAAECgYAfRrnngKGVfY8Bn/7d/CiaRH+T\n"
	  "C4AMklXeRirWYQYzt5LAhmYOmK5w9lhNmml/P49X4q+cfzFB178e7KKQcBsrD/Cv\n"
	  "pWn+JYW+l/D4pXIRBN4+9OT25Y2rfPip5RRWxpAVoA8UJnjJnnYrv02jSlP+5rEd\n"
	  "48XaPeGQ+cTNuZt3WQJBAM6/1q9RxNndI1VfDX3aaw0PH1fVmFFTWcnhGZNyibWG\n"
	  "NShborGUPgVkqEdUJitQ+vkzKZrykiaDkEZBapO2xjMCQQDCyKnGfqqK+Z/0/Nz2\n"
	  "wrPjxcI2q3anF6/Mie4B3l6FfG/rzgmdx29VlLmcoJgBwgGvTtDvW8ijxzxDBQsK\n"
	  "AOQjAkABOVmICC/mKkz/QGTQDe78UM6asoUIVjn92/tOyCrQjE7cQk6gRoRne8UT\n"
	  "RwhC0WPq/caNSEpdOAIuqEx9O2PJAkBbRJLogyl9/QFKVcFjjk+kBmG+JBFwsdSZ\n"
	  "zndLQNqhSXFX2C8BUxWD0DA4h7cx+6m2bwPPY/5bX1uJO6+0fD5pAkA/ykvdBnRI\n"
	  "CaYdnYfE+toDdQmyo7ilnkEcdTthh3tIQ8ARdi7CrHBkt5vLDOJNhZI0sgHUWqB8\n"
	  "dqde66cndhxl\n"
	  "-----END PRIVATE KEY-----\n" },
	{ "rsa2048",
	  "-----BEGIN PRIVATE KEY-----\n"
	  "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQDPbhEUFyIYXmUA\n"
	  "qsCz9W0wcWPKh5FDKkYIjxnaNXmQ0GmnxYP6d/5gLcXi7zWKaNySCNq74xdsUwHO\n"
	  "9cPyS6QMsfNPPFrWszemIC7PAzHvcm3DY9EVHf6oq590E+/q0fwYrgIpktq6R5li\n"
	  "AyZCd6fJLVIT/oZJX5yMhmga+g+x7r8jwQSO3UYs6sY8qwVtWHMn2a+EqXKs52H7\n"
	  "8w/V//C9zEQenbR8rvuzTdKmiLHf3k+EOr3ButpZ8uLG793jlShgULT9j/TYOfTp\n"
	  "wYQkXxZRLB7+4SaNJmKCNxClWk6/NKCK9csJoDKg0D0ytGM64Cr3ErfovlbhXk9h\n"
	  "NARIV8tDAgMBAAECggEAAdXeyp3RYrc3HC3mnZ3VO2gApfKg8bmAIoqnNzVg7LI2\n"
	  "m4VVmSCsFgxho2C4r9xX4Bm6KCgNKLUe7EaXCl/qXphjTd17wK/+SCohvLNlCWuq\n"
	  "r/kEPE3mV0MjGo/wmaEF1e9FCQdWuyFvqIMQBbRXiwhFISf2TTqBp2neP8FCfhfZ\n"
	  "vB4Rt3tweBMgMKs8WnBBa7sWFzSXq1L5a6C9429zDZfjy4zcMLNG92ZmQ4zp/4q+\n"
	  "LioEgg9calWoK0cBfK5h8L6H0TXv/ACzHOuGZDZvvCL8a8IZCYJ4OrqsEcA11Rqb\n"
	  "5R2wmPZ7lWjxoIBYx+ZZP6Dinfvdf4P0wi6YIpuVEQKBgQD3/A/nep28iQCPjnbJ\n"
	  "BxpH1jXYP7XTlif2BsPSlSj9jdk5oc6kyrdHWWr4oliHX0DrfTC1ysKJUnOq8bdS\n"
	  "8e7X75ZBmHcFZDCkAPXL3vHqn2i/fpuWx1TYee9TiDrKCHJaS9UmjxjUY4K3Kfod\n"
	  "MZBPoa1j+YxH9uKg+OJLxhyZMwKBgQDWIm/Op2eZZOCa+0VPe0vfTmoLf0Z+afFf\n"
	  "8v5zhKy1MCayRF3PZIGsjCOKca3IYuL/l+GxwiQ1Q4DC9uo+iKQNouP27jB3lJQl\n"
	  "mAluIlzQ2s8tusGc1iY8u+hij6VJa4+NOLus+biGl3rjjvxeB+4vfC9RV+qjhLQn\n"
	  "qJJi6NylsQKBgQCnXIBHUyN9iGDOgfF8/sQn01QHnAfUwrQ5gJtMVcqSRNdj4+YY\n"
	  "pY9IIfrlzns88XZY9+aV6j+cef8CUZvN6OWu6k1X+9Pn2ZRSOyun6dEO7YK+Km5L\n"
	  "Nj/20WRJ1dkHXOgANMmn+k9hl78yaqwYY8jnVVA19sdMEj0lMpNXXF8UrQKBgDdm\n"
	  "A10IbEIAGieeWCke8dsc00yUKe2shPjYycGjEndxtKEsFMUB8JZuTweTL22HP8j2\n"
	  "RzqQyoNJKnfGH4X8Hc01VhrdNobJVqZ/NflbRH34Dd970Hk94fiWeKF/HjjnbeUQ\n"
	  "R2WR2Y5ghDd5F4tQK+v3CdrWjuqs+1rDPtP+AI+RAoGAZBoqNkdGMaAjTAnu3vW4\n"
	  "b4IubddLoaFURWGje09C1ZsBoMceaxKHtwrndxCEgll0r/4g8toS2KeZ+frzbvVh\n"
	  "3sEq4qcEoJLYzyTsd7C6w8SoQW4ooX4oZYx5CCMbHxOtJ8+kFEPAGsBaF4JiFBcU\n"
	  "e4m76z1zSh6/rpO3pkiPwY4=\n"
	  "-----END PRIVATE KEY-----\n" },
	{ "rsa3072",
	  "-----BEGIN PRIVATE KEY-----\n"
	  "MIIG/AIBADANBgkqhkiG9w0BAQEFAASCBuYwggbiAgEAAoIBgQC9BQHR1LQqIsmh\n"
	  "3tUT1SVyACLS5PmRfUchEkC3Z/ui9Y56X1hubEnzB/t1aHd81bVIhUwIqZ18bN07\n"
	  "7Wx5v9QGqJj2dWNqfuQcvR9QzF8+bjhvnd1lPMwH99eUXfU22Rt1hxF2w5WN4Q2r\n"
	  "lM9Gxwo6LDUCbjPUHY9MKqqULpvQCPRJk+5CJWUl31afON0+tNwVsPZuwiE9qU1s\n"
	  "JBkhb+SqF05hOvBvcCeIuUCuDceJn6CwT8EjJJukLmpNHRILtnMS5bFyeH8NRJcE\n"
	  "XAUJoe4Rkk8xfXCgIIGdOzaShV8OILSh/vqJhJ2ry/tkN4A7m9nelLy0/msrBXsO\n"
	  "9nr6cFFH+BaCh8Aa+Me17OsQCSH3zAjqow9/SD3OeeLvoyDDUDO46mowWvpcdjk4\n"
	  "waGFl3luKbhT+IPj6HPvAwchQCYBsQNWo3Ib0mEsvA5KIj0ETZ4UpViUAZ6sp0xc\n"
	  "0Bx+lIDt4+jDw5Jhv9b2snfENmP3s7achxxlNC5BBMMxA9GWIucCAwEAAQKCAYAc\n"
	  "cBhp/VptzHYRiHj+Vt8fW63hlNmHbhW5gAmEjnxpdBBPkPC5DEnD6ruGWoU/ntd7\n"
	  "ZbKeywYKpkZSsdHUL2wy5EK/McIXT6f6OunvOhBKUELlaBbbGF6KBFvG0qwF6Hwd\n"
	  "HokeGSbzBZ0M54KX33JGdkgzaWkazKe2ieTIDosarX4zY7JA+WdSX1uk8OU4ffVu\n"
	  "vgUVfNeLc2FWl8fAJBl/DaqZLkjmOzV3eIemqCQRLJb8b8NbCjLwbJtJpsoEQRqk\n"
	  "Wu3GqJKwLt4m2PyJjYflvSeRkkuoUFueN7X/j+iWn8VY5B16P9U9djcON+cJDjyD\n"
	  "WTVMbdxTQcD55uyKlx794LdVMr2/lg3Y9OMVLg9yZCUYfzhxU49ic3qv74aaLD3t\n"
	  "SpNYnY6dsf9TLWVps3HbU4MgeHnynxEBJ4ByPfhn3jZod+ycEksN5vgFn0Kaeifx\n"
	  "/IVQ79EAjSJs1jzPbLJQ5Lmz1Izg/IWnZ0/HOwY5PHQIqQ+yOjqLjYS5vwkkC0EC\n"
	  "gcEA+GeHBRCWdBQ4BhTAXWWrHjl3SjTrLPyCqLtFeYVx9MhJxyYJbKBrPtOIO6I8\n"
	  "QvALcKYlUjylwwWRNys+2pfaB8j+1eFaYs237S+MZTp3IWfRI7zRHnkMutIXdA8o\n"
	  "m4KsPh3LExW5OKjt4vhwNIHHqX1l4zy5u093DrM3rDVI7Ck51qpSqaE1ScvTR8Rm\n"
	  "xnk855NiNS4oAAySC5aPw6k+pQWHDIwODH16GXPdTLpZSVJhJ/SVTfdfNi3neHKG\n"
	  "7Z2ZAoHBAMLMn726VWru/H7Eos1qOy40deX9F2aS6ejis4f4V0adyucQcTUOKs+K\n"
	  "xEHYvO+055/x5dtaarZ1ku0WJ2sLasMmwLLuZT5aRyn62a40bY1J9MZEn10SDiEv\n"
	  "mzSxMLY3dSldYJ2Bt6gYj9kkdwaz+rSk4nx6tt18IEjhKhOQjwrD9ptUfH/TT2ZC\n"
	  "2SnZhWXlw6A7axB9oT6r4+laiFM7ze1LXGebMsSN5l5p7oW+XdyGlZuyZs+HQIIq\n"
	  "dBgD+a0UfwKBwAqpfu0juiF/YKw6JcuceozQkKM5xEJpED6n0yKVLMAB/NC0fEES\n"
	  "XagTskxE+WsyHHuYVg/ClKbbTVFd5NPDItOkt/N8OcH17Igcu1z49nYTm7F6AEvb\n"
	  "jEVUkTclE2whXr1H0BignROmhJdybHaEf4px3Ha1e49jqMuTu7cDjn68gkQJiYTI\n"
	  "a54gRpBVCMhKGegitltsAMGHyJkAvGj8kbjJlPNf65ZzqFMBWyVY9k4kYBEz+Vig\n"
	  "XpDXxZCw8cOvOQKBwCQjTecmsD38Q/9If2NYN85kkRKvly3CR36av++TlK1XDJM9\n"
	  "K6NKE4sZFTuZ98MIbofvmlLNPUrIGQ++smVbYtz9TXZkX4fnu5gAH23/7+rsM2qs\n"
	  "xFvBw7lIWaS20nCbbTLVTd0qeWXH2LfR2fr2XKYyiInLQi1on5ylmOa0RLUckZ1T\n"
	  "WR1lmC9Ca4MmBWdX7qjFHSGcDNPRk6Bw2SWHzLYe6u+VjR+Fq50MTeGl5UfJ9+tA\n"
	  "d248iy0arxrdce44BQKBwEq1buUDJoYZxnYUU1FnZxu2bl7BKB5Oj9affandKfDR\n"
	  "nKvr5+7274ts8KDOqoilCFVVX8pflWv1+LECW2AfQqFGWY1b2/yivViwiWfe4Kj8\n"
	  "+E4/m4FCSJprDkScfLRveNvjx5c2ZSh4hzP/v1RgOxAqLVOidy1YCfriT4nwXoF6\n"
	  "dV6F1ye3p5ALFRoHqCn6ZIvF4lXCVQmpiZRSs1IBBHiMXUL+zR6zAAK/Y1P4xVCA\n"
	  "fHLiydcw375IzsZ+N17Igg==\n"
	  "-----END PRIVATE KEY-----\n" },
	{ "rsa4096",
	  "-----BEGIN PRIVATE KEY-----\n"
	  "MIIJQgIBADANBgkqhkiG9w0BAQEFAASCCSwwggkoAgEAAoICAQCfNb/MEs6etSfT\n"
	  "ZZ65gU2ju4T0iQ8Pf8Llhtt7dNJtx46toq14fn40ytiKqAzQPDVGWNRD3/pKMf5h\n"
	  "pgzmD2VnIE1DtyL7NW0xxjUL7FJ3Q7Nj59cA5FkbAexY7qNLZLImrfRXGBmyAcAF\n"
	  "WLfoN2XF2/KKZWTNPBkyJVij3OyDPP+/SB5zJod/OKdfTl6AGHBGfHcPcPUSCUPA\n"
	  "kcBsYCWUeaoR1nhcgu+tkP+FvEsZ/IOYvWkSG8nqECxDf6X31RjUoiIOwPJveAnK\n"
	  "q/5oEbDu9GjCanVEgDsELIeZHCWMgaWRICR73Hfpx9CnLXg17+b35odrm1+oe6Eq\n"
	  "Wo824jWXskucqtYyv/duajNUg6g/KilJpctqJ9b3kUGCIlsABLKqgLdQs0nA90j+\n"
	  "yJ86vef6pa5ssSu1lq77aHuEGa7H5qBhHM1M4JP3MIeigySD6UFzpjT4CA25r1kC\n"
	  "2n9bLDjfdmLH95iQu1SEHH9jbdjDgBJniD9c95QaAPxEtKpc1975v/lThzAoPo5G\n"
	  "ZeymC0tMT93VJINd6702tsOu6cslzpq4f1tfwZwCE09sSMNlsnl3r9hG106eS95g\n"
	  "sAmIDAsz0RNjdGvGsAHUGHfr6jgerH8yFmX5WT4/M0TsO2wA2vKPWmuIfKNcDZhp\n"
	  "GTg7DPLSzDapMRVdGJCpqthLLASNdwIDAQABAoICABN4QLzFngP1lmm5NyhrYiHA\n"
	  "SFmZO0DDeIOWMtgNqMApE88zIjCmk2uEVOfb9jku67rvGQI17UdOhtPNOS2XO2jZ\n"
	  "n+lEh6Ad3/0ixpDvNQSFwHXav8XJpwXw/cTAZjLNnSWyxzsxZM8KfL+Kom7g+26v\n"
	  "X6FCFgotK82gmI7tcPT5rDLpsGOXliFePcWfcVoL4wsTpIG8aBPtEx6FFHmMZnwa\n"
	  "RsyIpE536rSYk075AFwsr7EplKRUxqP7l1Yn0ZWVt0QlkbGpMdyk2tmwn9t9Mlx+\n"
	  "giMoXq/iWJVBltGICiV9I1C0lBGbnAR4XZFcM6Ow81dklzH3HcMeX06tJW9qSXBS\n"
	  "la0zMO8QqeUrDbxfS/50nOw3wR1cvUVF7XIDqroZdz6hOH4dGPxAuV+Yk679j1mo\n"
	  "NpWT/hgRWBxndSGFzY4P+bYwwnY6dDo8eNag7dhdRLUE7/UQ8N1EDL+XD+gN3Gea\n"
	  "FnN3cxX/7AsvsO4YnuegRcERxk2HEfJ/3EZJDv+5ZPPFtzRBBvnEdwWnRqIlH117\n"
	  "tiC8jJo/Y5ftKZA1fGjdZjwgpQCGdS/4gggQ4LqMDDM+8UyRZCUXctlBdT7ncaDj\n"
	  "KM7xFohUis+zlcxiHvGKPKK5rVKMEriaNyKcCoBlPx9OKlEI0Ck4ZOq0mOPlcCmb\n"
	  "mQpLLvoRp7yenATrARfJAoIBAQDdKlFA/XhaKn9Nem/LCtaSfMM/A5CODzH1ACl+\n"
	  "c1lDmE2xiByRHbk61h4sYfAH/q7dB63xfgdLzRuKj+HEkiSLUOQIuuIm5Gh3ZeUe\n"
	  "ILgp24tjMhcPyaKulwTD19q2wtk3J/O0lD3KpC+P4hqMAZm+mkoOcHHQLVL9b8bg\n"
	  "RnL8v0K6sNVRiby4QAohIbnSA++g8m1ifiOlWFlpgttlY2FoyLzogatyjbngdfuf\n"
	  "n08ua4o+ILvfhNxpzRTLGaPMnLKFLfOTJdLp7w1hS+qaHk4krermueCS0i+9aB73\n"
	  "ZWCLMJ37moD6ovJnFE8YJ9gBl9ZuGMz+yQGeAo9YvtogJtFZAoIBAQC4SU8XTc3A\n"
	  "X6ZFFYs7+yaMe2tfcHf5bT9iIS6yWdoUQNVwlXzQmstTsMl0MOmAw8Xpk3FZvuVM\n"
	  "fVxX04zmw/BumENsf7Dz5tPGj6InyFu1A71wUmYHIyKNgp1r+MZW8RELLa7onnpr\n"
	  "ndkqVz4Rcz2FsYESBDhk29/7liIlKayL5t5eMdztLpybBttlD53kvl/8oZKib1BY\n"
	  "5MAlfFKQuzBR+yOqG3vSCydrd3imLUooSvWh/vske/qX4kmBOtDy3YqM7JKm+s+g\n"
	  "++nzcle4B66qiG9wcwZpZewBtqL4AAg+RMrCWB9ArHvW98LA/C8IOSRFX2y+Srhg\n"
	  "zMvgNJNV4CtPAoIBABSVApjMve2ONOit80dvC8b4K2dq2oIN8fU9/Z6R94Wt39Uc\n"
	  "uKPco0dRc99ngeIMlpNlSo/FzcIFJYIAn98eRp5cecxCMBe0e/BYoDjsjJcAonkp\n"
	  "yTGj7yrWTRA4v1bwzSwv4KM2hIWeP/rg7N2IrJkrXKb5We4ouadyRozKoZrZ5cjf\n"
	  "+gorik+PTiIFNHjR+vP8e6eF26VgknmaPvaxh/grbkEpCB6SB/FWqYMSXVkRkvzz\n"
	  "KOjFQYnrFvtLuI2rK4XvX9Ka24T/xTv/x6ZuGZGaSdkNBVREkULMNM2LNq/dZ2Zp\n"
	  "24T3sx1aq32w/44uZjs6vaEcbbUZweNdZ4lEc4kCggEABXsApCPHM6pkindqjZ0Z\n"
	  "d2IQPmVc3AkYsnVkKx+q8aE/97oqXRXNaC7AvvjZaN/pmdmtrEqWDSFJRr9e2FoJ\n"
	  "Y3CZyLc/bvF1aNlKrD40I/z5fEanDB1KYMT6o4RheaJvrFJuejKEV4D5PV4c1W4E\n"
	  "7V3rBbskZjN3xMahO1Oy8vIpuMlo1ZDmTWH10lqVioDy39N6ReRjklEzOaop1m4K\n"
	  "sNV0KRHqK8PzJyoFZ4O/SdV42pl3pI0fVbcAEpzKK/7UqP48GkUpOZNkUL4cx7dK\n"
	  "xX2LOt/g1++VBjQFQrTVieyHzyHJxCWdBTaXDyAw0eDJKFr/I+Wa+B3/DiriGtKw\n"
	  "1wKCAQEAmR9+dAl1aNovJIviFGyyIRNY4gS0u5qXNWlz8B0c7PbjQYGsXvHNYQ+Q\n"
	  "Hm9HgWGcl0dHzAG/8S8ndyeoVRZLtSvluHURGpBa1cD+4TdRRQPZD8YXIYbOS/C5\n"
	  "fOwf8TzpBJoUVY6GX0++aOzYwsGf65kfAWULnuDYDP91r6heoKB9VswjEsx5hjSY\n"
	  "8E7U1woORn1gCu0q30rdYXsM5ZOZunQg/ePQQQoy/A7JodmqbnU206tBzbGAvqaO\n"
	  "DMZWW4XDGTUSS4V5BSPUvPzDvW/03j0jDInqyOF1pWT9VUdl3RG9aJASmj+RWkFp\n"
	  "SzLEY4Npy0k2WPQUiGon4AzSFE1UGw==\n"
	  "-----END PRIVATE KEY-----\n" },
	{ "ecdsa-p256",
	  "-----BEGIN PRIVATE KEY-----\n"
	  "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgWAaxJyjvCWe97bJh\n"
	  "V9SvJjtWoX9aE/+bkoK9dXrV4EmhRANCAAT59z0p8gZ6iTZ3gvJD3jkqMZ7seJpZ\n"
	  "61qedcDbFST/odTdIAOOfSHo0kUbn1gi6qHcY/Scv+ufxmEe5XAu5yNK\n"
	  "-----END PRIVATE KEY-----\n" },
	{ "ed25519",
	  "-----BEGIN PRIVATE KEY-----\n"
	  "MC4CAQAwBQYDK2VwBCIEIPzlspKXdPK+zI6fJK5OwRjk/ls4cUogZgg+Vs9Nahht\n"
	  "-----END PRIVATE KEY-----\n" },
};

EVP_PKEY *bp_test_key_load(const char *name)
{
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		BIO *bio;
		EVP_PKEY *key;

		if (strcmp(keys[i].name, name))
			continue;
		bio = BIO_new_mem_buf(keys[i].pem, -1);
		if (!bio)
			return NULL;
		key = PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL);
		BIO_free(bio);
		return key;
	}
	return NULL;
}
