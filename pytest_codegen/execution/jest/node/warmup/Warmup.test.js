import React from 'react';
import { render, screen, act, fireEvent } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import fetchMock from 'fetch-mock';
import '@testing-library/jest-dom';
import Warmup from './Warmup';

afterEach(() => {
  fetchMock.reset();
  fetchMock.restore();
});

test('loads every module a React test uses', async () => {
  fetchMock.get('/api/warmup', { status: 200, body: { text: 'warm' } });
  await act(async () => { render(<MemoryRouter><Warmup /></MemoryRouter>); });
  await act(async () => { fireEvent.click(screen.getByText(/load/i)); });
  expect(fetchMock.calls('/api/warmup').length).toBe(1);
  expect(screen.getByText('warm')).toBeInTheDocument();
}, 10000);
