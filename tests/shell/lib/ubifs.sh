# Sourced by tests/shell/ubifs-*.sh after common.sh: the keys and signed
# images those tests make with openssl and mkfs.ubifs.

# ubifs_keypair KEY CERT [CN]: a self-signed RSA key and its certificate
# (CN=tk by default), as mkfs.ubifs --auth-key and --auth-cert take them.
ubifs_keypair() {
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$1" -out "$2" \
		-days 2 -subj "/CN=${3:-tk}" >/dev/null 2>&1 || fail "openssl $1"
}

# ubifs_signed IMG DIR MKFS-OPTION...: mkfs.ubifs of the tree DIR into
# IMG, authenticated with sha256 and signed with key.pem and cert.pem; the
# options give the geometry.
ubifs_signed() {
	local img=$1 dir=$2
	shift 2
	mkfs.ubifs "$@" -r "$dir" --hash-algo=sha256 --auth-key=key.pem \
		--auth-cert=cert.pem "$img" || fail "mkfs.ubifs $img"
}
