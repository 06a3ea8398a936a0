import QRCode from 'qrcode';

/**
 * `text` as a QR code in SVG (a white square with a quiet zone, scalable by its viewBox), for an
 * admin to scan the otpauth:// URI with an authenticator app. Error correction M: what phone
 * cameras read from a screen; the URI stays well under its capacity.
 */
export function qrSvg(text: string): Promise<string> {
  return QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 4 });
}
