/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * xt-fscrypt: make an empty directory encrypted (fscrypt, v2 policy), for the
 * lab's file-system checks (tests/lab/tests/315-host-fs-check.sh). Adds a
 * fixed test key to the directory's file system (FS_IOC_ADD_ENCRYPTION_KEY:
 * the file system's own keyring, no keyctl session needed), then sets an
 * AES-256-XTS / AES-256-CTS policy naming it (FS_IOC_SET_ENCRYPTION_POLICY).
 * The file system needs the encrypt feature (mkfs.ext4 -O encrypt).
 * usage: xt-fscrypt DIR     (prints the key identifier in hex)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/fscrypt.h>

enum {
	KEY_LEN = 64,
};

int
main(int argc, char **argv)
{
	struct fscrypt_policy_v2 pol;
	struct fscrypt_add_key_arg *ka;
	int fd, i;

	if (argc != 2) {
		fprintf(stderr, "usage: xt-fscrypt DIR\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY | O_DIRECTORY);
	ka = calloc(1, sizeof(*ka) + KEY_LEN);
	if (fd < 0 || ka == NULL) {
		fprintf(stderr, "xt-fscrypt: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	ka->key_spec.type = FSCRYPT_KEY_SPEC_TYPE_IDENTIFIER;
	ka->raw_size = KEY_LEN;
	for (i = 0; i < KEY_LEN; i++) {
		ka->raw[i] = (unsigned char)(i * 37 + 11);  /* a test key, not a secret */
	}
	if (ioctl(fd, FS_IOC_ADD_ENCRYPTION_KEY, ka) != 0) {
		fprintf(stderr, "xt-fscrypt: FS_IOC_ADD_ENCRYPTION_KEY: %s\n", strerror(errno));
		return 1;
	}
	memset(&pol, 0, sizeof(pol));
	pol.version = FSCRYPT_POLICY_V2;
	pol.contents_encryption_mode = FSCRYPT_MODE_AES_256_XTS;
	pol.filenames_encryption_mode = FSCRYPT_MODE_AES_256_CTS;
	pol.flags = FSCRYPT_POLICY_FLAGS_PAD_32;
	memcpy(pol.master_key_identifier, ka->key_spec.u.identifier,
	       sizeof(pol.master_key_identifier));
	if (ioctl(fd, FS_IOC_SET_ENCRYPTION_POLICY, &pol) != 0) {
		fprintf(stderr, "xt-fscrypt: FS_IOC_SET_ENCRYPTION_POLICY: %s\n", strerror(errno));
		return 1;
	}
	for (i = 0; i < (int)sizeof(pol.master_key_identifier); i++) {
		printf("%02x", pol.master_key_identifier[i]);
	}
	printf("\n");
	free(ka);
	close(fd);
	return 0;
}
