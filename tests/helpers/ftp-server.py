# A real FTP/FTPS server for the upload tests: pyftpdlib (Debian python3-pyftpdlib, with
# python3-openssl for explicit TLS), on 127.0.0.1 and a free port it prints as "PORT n".
# Every finished and interrupted transfer is appended to --log, one line each:
#   RECEIVED <name> <bytes>   a STOR/APPE that ended normally
#   INCOMPLETE <name>         a transfer that was cut off (client killed, connection lost)
#   LOGIN_FAILED <user>
#   REFUSED <name>            a name given with --refuse (answered 552, storage allocation exceeded)
#   APPEND <name>             an APPE (a resumed upload) began; its end is logged as above
import argparse
import os
import sys

from pyftpdlib.authorizers import DummyAuthorizer
from pyftpdlib.handlers import FTPHandler, ThrottledDTPHandler
from pyftpdlib.servers import FTPServer

ap = argparse.ArgumentParser()
ap.add_argument('--dir', required=True)
ap.add_argument('--user', required=True)
ap.add_argument('--password', required=True)
ap.add_argument('--log', required=True)
ap.add_argument('--cert')
ap.add_argument('--key')
ap.add_argument('--throttle', type=int, default=0, help='bytes per second a client may upload')
ap.add_argument('--refuse', action='append', default=[])
args = ap.parse_args()


def note(line):
    with open(args.log, 'a') as f:
        f.write(line + '\n')


base = FTPHandler
if args.cert:
    from pyftpdlib.handlers import TLS_FTPHandler
    base = TLS_FTPHandler


class Handler(base):
    def ftp_STOR(self, file, mode='w'):
        if os.path.basename(file) in args.refuse:
            note('REFUSED ' + os.path.basename(file))
            self.respond('552 Exceeded storage allocation (quota).')
            return
        return super().ftp_STOR(file, mode)

    def ftp_APPE(self, file):
        note('APPEND ' + os.path.basename(file))
        return super().ftp_APPE(file)

    def on_file_received(self, file):
        note('RECEIVED %s %d' % (os.path.basename(file), os.path.getsize(file)))

    def on_incomplete_file_received(self, file):
        note('INCOMPLETE ' + os.path.basename(file))

    def on_login_failed(self, username, password):
        note('LOGIN_FAILED ' + username)


authorizer = DummyAuthorizer()
authorizer.add_user(args.user, args.password, args.dir, perm='elradfmwMT')
Handler.authorizer = authorizer
Handler.passive_ports = None
if args.cert:
    from OpenSSL import SSL
    ctx = SSL.Context(SSL.TLS_METHOD)
    ctx.use_certificate_chain_file(args.cert)
    ctx.use_privatekey_file(args.key)
    # Clients (basic-ftp, as FTPS servers ask) resume the control connection's TLS session on
    # the data connection. pyftpdlib's pyOpenSSL channel resumes only TLS 1.2 sessions by id
    # (a context without a session id context, or a TLS 1.3 ticket, ends the data connection).
    ctx.set_session_id(b'tagsmith-test-ftps')
    ctx.set_options(SSL.OP_NO_TLSv1_3 | SSL.OP_NO_TICKET)
    from pyftpdlib.handlers import TLS_DTPHandler

    class DataChannel(TLS_DTPHandler):
        # pyftpdlib 1.5.7 closes a data connection that becomes readable before its transfer
        # command arrived (DTPHandler.readable), which is what a TLS data connection does when
        # its client hello comes before STOR is read: the client saw a reset now and then
        # (pyftpdlib issue #604). Let the handshake run, then wait for the command.
        def readable(self):
            if self._ssl_accepting or self._ssl_want_read:
                return True
            if not self.receive and not self._initialized:
                return False
            return super().readable()

    Handler.dtp_handler = DataChannel
    Handler.ssl_context = ctx
    Handler.tls_control_required = True
    Handler.tls_data_required = True
if args.throttle and not args.cert:  # the TLS handler has its own data channel class
    import socket

    class SmallBufferDTP(ThrottledDTPHandler):
        # A small receive buffer: what a cut-off client had written is not all waiting in the
        # kernel, so a cancelled or killed upload ends short on the server.
        def __init__(self, sock, cmd_channel):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 32768)
            super().__init__(sock, cmd_channel)

    dtp = SmallBufferDTP
    dtp.read_limit = args.throttle
    dtp.write_limit = args.throttle
    Handler.dtp_handler = dtp

server = FTPServer(('127.0.0.1', 0), Handler)
print('PORT %d' % server.socket.getsockname()[1], flush=True)
server.serve_forever(handle_exit=True)
