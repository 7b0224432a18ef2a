import { describe, expect, it } from 'vitest';
import { canonicalAddress, classifyAddress } from './address-policy.js';

describe('classifyAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback 127.0.0.0/8'],
    ['127.255.1.2', 'loopback 127.0.0.0/8'],
    ['0.0.0.0', 'this-network 0.0.0.0/8'],
    ['10.1.2.3', 'private (RFC 1918) 10.0.0.0/8'],
    ['172.31.255.255', 'private (RFC 1918) 172.16.0.0/12'],
    ['192.168.0.1', 'private (RFC 1918) 192.168.0.0/16'],
    ['169.254.169.254', 'link-local 169.254.0.0/16'],
    ['100.64.0.1', 'carrier-grade NAT (RFC 6598) 100.64.0.0/10'],
    ['224.0.0.1', 'multicast 224.0.0.0/4'],
    ['255.255.255.255', 'reserved 240.0.0.0/4'],
    ['::1', 'loopback ::1/128'],
    ['::', 'unspecified ::/128'],
    ['fe80::1', 'link-local fe80::/10'],
    ['fe80::1%eth0', 'link-local fe80::/10'],
    ['fd00::1', 'unique-local fc00::/7'],
    ['ff02::1', 'multicast ff00::/8'],
    ['::ffff:127.0.0.1', 'IPv4-mapped spelling of loopback 127.0.0.0/8'],
    ['::ffff:7f00:1', 'IPv4-mapped spelling of loopback 127.0.0.0/8'],
    ['[::ffff:7f00:1]', 'IPv4-mapped spelling of loopback 127.0.0.0/8'],
    ['::ffff:a9fe:a9fe', 'IPv4-mapped spelling of link-local 169.254.0.0/16'],
    ['64:ff9b::7f00:1', 'NAT64 spelling of loopback 127.0.0.0/8'],
    ['64:ff9b::10.0.0.1', 'NAT64 spelling of private (RFC 1918) 10.0.0.0/8'],
    ['2002:7f00:1::', '6to4 spelling of loopback 127.0.0.0/8'],
    ['2002:c0a8:101::1', '6to4 spelling of private (RFC 1918) 192.168.0.0/16'],
    ['2130706433', 'loopback 127.0.0.0/8'],
    ['0x7f000001', 'loopback 127.0.0.0/8'],
    ['0177.0.0.1', 'loopback 127.0.0.0/8'],
    ['not-an-ip', 'not an IP address'],
  ])('refuses %s as %s', (address, range) => {
    expect(classifyAddress(address)).toEqual({ range });
  });

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '1.1.1.1',
    '2606:4700::1111',
    '64:ff9b::808:808',
    '::ffff:8.8.8.8',
  ])('lets the public address %s through', (address) => {
    expect(classifyAddress(address)).toBeNull();
  });

  it('canonicalises numeric spellings', () => {
    expect(canonicalAddress('2130706433')).toBe('127.0.0.1');
    expect(canonicalAddress('[::ffff:7f00:1]')).toBe('::ffff:7f00:1');
  });
});
