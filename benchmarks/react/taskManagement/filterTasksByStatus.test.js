import React from 'react';
import { render, fireEvent, waitFor, screen } from '@testing-library/react';
import '@testing-library/jest-dom';
import fetchMock from 'fetch-mock';
import { act } from 'react';
import TaskFilter from './TaskFilter';

afterEach(() => {
  fetchMock.reset();
  fetchMock.restore();
});

test('asks the server for completed tasks only', async () => {
  fetchMock.get('/api/tasks?status=done', [
    { id: 7, title: 'Ship release 2.1', status: 'done' },
    { id: 9, title: 'Close sprint', status: 'done' },
  ]);

  await act(async () => { render(<TaskFilter />); });
  await act(async () => { fireEvent.click(screen.getByRole('button', { name: 'Done' })); });

  expect(fetchMock.called('/api/tasks?status=done')).toBe(true);
  expect(screen.getByText('Ship release 2.1')).toBeInTheDocument();
  expect(screen.getByText('Close sprint')).toBeInTheDocument();
}, 10000);

test('shows an error when the filtered tasks cannot be loaded', async () => {
  fetchMock.get('/api/tasks?status=done', 500);

  await act(async () => { render(<TaskFilter />); });
  await act(async () => { fireEvent.click(screen.getByRole('button', { name: 'Done' })); });

  expect(fetchMock.called('/api/tasks?status=done')).toBe(true);
  expect(screen.getByText(/could not load tasks/i)).toBeInTheDocument();
}, 10000);
