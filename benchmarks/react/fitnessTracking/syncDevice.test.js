import React from 'react';
import { render, fireEvent, waitFor, screen } from '@testing-library/react';
import '@testing-library/jest-dom';
import fetchMock from 'fetch-mock';
import { act } from 'react';
import DeviceSync from './DeviceSync';

afterEach(() => {
  fetchMock.reset();
  fetchMock.restore();
});

test('syncs the wearable and reports how many activities were imported', async () => {
  fetchMock.post('/api/devices/sync', { status: 200, body: { synced: 3 } });

  await act(async () => { render(<DeviceSync />); });
  await act(async () => { fireEvent.click(screen.getByRole('button', { name: /sync device/i })); });

  expect(fetchMock.calls('/api/devices/sync').length).toBe(1);
  expect(screen.getByText('3 new activities synced')).toBeInTheDocument();
}, 10000);

test('reports a failed sync when the device service is down', async () => {
  fetchMock.post('/api/devices/sync', { status: 503, body: { error: 'Service unavailable' } });

  await act(async () => { render(<DeviceSync />); });
  await act(async () => { fireEvent.click(screen.getByRole('button', { name: /sync device/i })); });

  expect(fetchMock.calls('/api/devices/sync').length).toBe(1);
  expect(screen.getByText(/device sync failed/i)).toBeInTheDocument();
  expect(screen.queryByText(/activities synced/i)).not.toBeInTheDocument();
}, 10000);
